"""flowjob's engine: everything that implements the public namespaces above it."""
