"""scievals: reproducible benchmarks of AI models on scientific tasks.

All logic lives in this package; Snakemake rules only call into it.
"""

__version__ = "0.1.0"
