"""Precision used for learning-rate arithmetic."""

from __future__ import annotations

import jax
import jax.numpy as jnp


def compute_dtype():
    """float64 when JAX has x64 enabled (OneFlow's kernel computes rates in double), else
    float32. Rates are always returned as float32, like OneFlow's ``lr`` blob."""
    return jnp.float64 if jax.config.jax_enable_x64 else jnp.float32
