"""Generators: build each benchmark's splits into HDF5 shards (one module per task)."""
