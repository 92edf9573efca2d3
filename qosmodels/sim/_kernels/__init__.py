"""Numba kernels of the packet simulator.

This subpackage imports nothing from the layers above it: the kernels see
flat arrays whose columns :mod:`.layout` names, and return status codes.
"""
