"""Analysis: what is derived from measured results: the model breakdown and waterfall
(``attribution``), the roofline (``roofline``), run comparison (``compare``) and the published
ladder (``paper``). Textual-free; never imports the engine or views.
"""
