"""The blind corpus (``examples/corpus``): kernels written the ways people write them, by
helpers who had not read the model.  Each is a valid scenario that computes A·B at a tiny size,
and its counting pass (the sites of its C work included) runs on it."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from overhead_tui.plugins.scenarios import discover
from overhead_tui.worker.counting.opcodes import count_events

CORPUS = Path(__file__).resolve().parents[2] / "examples" / "corpus"
FILES = sorted(CORPUS.glob("*.py"))


def test_the_corpus_has_at_least_24_kernels_all_discovered():
    found = {s.name for s in discover([CORPUS], include_builtin=False)}
    assert len(FILES) >= 24 and found == {f.stem for f in FILES}


@pytest.mark.parametrize("path", FILES, ids=[f.stem for f in FILES])
def test_each_corpus_kernel_multiplies_and_is_counted_with_its_sites(path):
    from overhead_tui.worker.main import import_scenario

    module = import_scenario(str(path), path.stem)
    rng = np.random.default_rng(1)
    a, b = rng.random((6, 6)), rng.random((6, 6))

    def arguments():
        made = module.setup(a.copy(), b.copy())
        return made if isinstance(made, tuple) else (made,)

    product = np.asarray(module.to_numpy(module.kernel(*arguments())), dtype=float)
    assert np.allclose(product, a @ b, rtol=1e-9, atol=1e-12)
    events = count_events(module.kernel, arguments(), sites=True)
    assert events.dispatches > 0
    # every site is named by what ran, and one not timed says why
    for site, calls in events.sites:
        assert calls > 0 and site.label
        assert site.timeable or site.why_untimed or site.reaches_python
