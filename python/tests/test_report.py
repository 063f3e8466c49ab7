# Results as `paratune report` draws them: report_html() is the CLI's page for the same document,
# and Jupyter shows it (_repr_html_) in a frame.
import html
import json

import pytest

import paratune


def cli_page(cli, doc, tmp_path, title=None):
    src = tmp_path / "doc.json"
    src.write_text(json.dumps(doc))
    out = tmp_path / "page.html"
    args = ["report", src, "--out", out] + (["--title", title] if title else [])
    r = cli.run(*args)
    assert r.returncode == 0, r.stderr
    return str(src), out.read_text()


@pytest.mark.parametrize("make", [
    lambda: paratune.estimate(),
    lambda: paratune.plan(model="llama-3.1-8b", gpu="H100", gpus=16, top=3),
    lambda: paratune.simulate(model="llama-3.1-8b", gpu="H100", gpus=8, tp=2, pp=4, global_batch=32),
])
def test_page_is_the_clis(cli, tmp_path, make):
    result = make()
    label, page = cli_page(cli, result.to_dict(), tmp_path, title="from python")
    assert result.report_html(title="from python", label=label) == page
    assert "<svg" in page


def test_jupyter_shows_the_page_in_a_frame_and_saves_it(tmp_path):
    e = paratune.estimate()
    shown = e._repr_html_()
    assert shown.startswith("<iframe srcdoc=\"") and html.escape(e.report_html(), quote=True) in shown
    e.save_report(tmp_path / "e.html", title="t")
    assert (tmp_path / "e.html").read_text() == e.report_html(title="t")
    assert paratune.validate is not None
    emitted = paratune.emit("torchtitan")
    assert emitted._repr_html_() is None  # no section draws paratune.emit/1
    with pytest.raises(paratune.InputError):
        emitted.report_html()
