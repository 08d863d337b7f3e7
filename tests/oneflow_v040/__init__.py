"""OneFlow v0.4.0's op tests run through flowjob run (see README.md here)."""
