"""OneFlow v0.4.0's model tests (``oneflow/python/test/models``) run through flowjob run."""
