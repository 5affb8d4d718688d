"""The numba kernels: page bit-planes (``pages``), move bitmaps (``moves``) and their warm-up."""
