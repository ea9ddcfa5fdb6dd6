"""Baselines: the DDPM and the Spatial Reasoning Model, trained on GPU, with the paper's samplers."""
