"""User-data deletion: the request, the durable job, and its tasks (the job carried out, the
operator alert of one that failed), which the background worker (`lisan.worker`) runs."""
