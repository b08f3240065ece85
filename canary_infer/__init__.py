"""canary-infer: exact inference for the Canary Club bridge system."""
