"""What a user does with finished results, above the registry: the versioned history of
``results/summary.csv`` (:mod:`~scievals.results.history`), differences between two
summaries (:mod:`~scievals.results.compare`, :mod:`~scievals.results.dataset_diff`), the
leaderboard (:mod:`~scievals.results.leaderboard`) and ``python -m scievals show``
(:mod:`~scievals.results.show`)."""
