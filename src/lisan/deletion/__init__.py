"""User-data deletion: the request, the durable job, and the worker that carries it out."""
