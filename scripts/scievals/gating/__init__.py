"""Flow-cytometry gating benchmark: predict a gating hierarchy from a panel.

Modules, in workflow order:

- :mod:`download` fetches FlowRepository experiments and plain URL sources (best effort);
- :mod:`extract` reads FlowJo workspaces with flowkit (the only module importing it);
- :mod:`curate` builds the normalised case file (OMIP cases + extracted workspaces);
- :mod:`prompts`, :mod:`parser`, :mod:`baseline` and :mod:`predict` make predictions
  (:mod:`records` reads prediction files: depth limit, no duplicate lines);
- :mod:`metrics` (with :mod:`normalize`, :mod:`markers`, :mod:`tree`) scores them and
  :mod:`score` writes the result tables and the side-by-side review;
- :mod:`panel` holds the panel helpers the baseline and the metrics share (the
  baseline never imports the scorer).
"""
