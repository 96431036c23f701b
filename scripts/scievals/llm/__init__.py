"""The one way benchmarks talk to language models.

Benchmarks build :class:`~scievals.llm.base.LLMRequest` objects and hand them to
:func:`scievals.llm.runner.run_batch` together with a :class:`ModelSpec` from the
model registry; caching, retries, concurrency and accounting happen there once.
"""
