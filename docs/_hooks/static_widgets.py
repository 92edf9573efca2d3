"""MkDocs hook: the notebooks the build runs draw their sliders' figures as plain outputs.

``qosmodels.notebook.interact`` reads ``QOSMODELS_STATIC_WIDGETS``; the kernels mkdocs-jupyter
starts inherit this process's environment, so each "try it" cell leaves an ordinary figure (at the
sliders' starting values) that the page shows without the ipywidgets JavaScript.
"""

import os


def on_startup(**kwargs):
    os.environ["QOSMODELS_STATIC_WIDGETS"] = "1"
