"""Fakes of the services Lisan talks to, served for real (tests and the bench)."""
