"""Flow-cytometry gating benchmark: predict a gating hierarchy from a panel.

Modules, in workflow order:

- :mod:`download` fetches FlowRepository experiments and plain URL sources (best effort);
- :mod:`extract` reads FlowJo workspaces with flowkit (the only module importing it);
- :mod:`curate` builds the normalised case file (OMIP cases + extracted workspaces);
- :mod:`prompts`, :mod:`parser`, :mod:`baseline` and :mod:`predict` make predictions;
- :mod:`metrics` (with :mod:`normalize`, :mod:`markers`, :mod:`tree`) scores them and
  :mod:`score` writes the result tables and the side-by-side review.
"""
