"""Programs of OneFlow's public model repositories of 2020-2021, run unchanged on flowjob."""
