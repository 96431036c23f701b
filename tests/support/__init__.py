"""Test and benchmark support kept out of the installed package: the fake LLM server
(:mod:`support.fake_server`) and the abdev demo-data generator (:mod:`support.abdev_demo`).
pytest puts ``tests/`` on ``sys.path`` (pyproject ``pythonpath``)."""
