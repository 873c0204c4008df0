"""Every command in the README's ``bash`` blocks runs, or is covered by a named test.

The cheap ones on the shared data run here, as written, in a folder beside a ``shared/data``
that is the data root (the README's ``../shared/data``). The others (a full treebank build, a
model, a user's own files, a cluster, the Hub) are each covered by the test named in
:data:`COVERED`; this test checks that the test exists. A command added to the README and
neither run here nor mapped fails :func:`test_every_readme_command_is_run_or_covered`."""

from __future__ import annotations

import ast
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

# Run here, in this order, as one shell script (``W=`` carries over).
RUN = (
    "polyprobe suite init --lang fi --search ../shared/data --data ../shared/data",
    "W=../shared/data/word_similarity",
    "polyprobe build similarity $W/vecto_word_benchmarks/word-similarity/monolingual/en/*.csv"
    " --lang en --out en-similarity",
    "polyprobe build similarity $W/multisimlex_concepticon/Vulic-2020-2244.tsv --lang fi"
    " --cross-lingual en,et --out fi-multisimlex",
    "polyprobe build analogies"
    " $W/vecto_word_benchmarks/word-analogy/monolingual/en/google-analogies.csv"
    " --lang en --out en-analogies",
    "polyprobe build analogies $W/finsemevl/analogy/ANA_*.txt --lang fi --out fi-analogies",
    "polyprobe build analogies --unimorph ../shared/data/unimorph/lexicons/slv"
    " --frequencies ../shared/data/ud/UD_Slovenian-SSJ --lang sl --out sl-analogies",
    "polyprobe build dictionary $W/multisimlex_concepticon/Vulic-2020-2244.tsv --multisimlex"
    " --lang fi --target-lang en --out fi-en-dictionary",
    "polyprobe build costra ../shared/data/costra --out costra",
    "polyprobe evaluate en-similarity fi-analogies --all --baselines --out results",
    "polyprobe report results --out report",
)

# Covered elsewhere: the command (its first words, enough to tell it apart) -> the test.
COVERED = {
    "polyprobe build pairs xnli.test.tsv --preset nli": "test_xnli_filter.py::test_nli_preset_keeps_the_lang_rows",
    "polyprobe build ner conll2003/": "test_ner_build.py::test_map_types",
    "polyprobe build srl conll2009-en/": "test_srl_build.py::test_rows_are_predicate_argument_pairs",
    "pip install . && polyprobe demo": "test_first_hour.py::test_the_demo_needs_only_the_core_install",
    'pip install "torch==2.13.0" -e ".[test]"': "test_first_hour.py::test_ci_runs_exactly_the_readme_quick_start",
    "polyprobe suite build fi.toml --data ../shared/data --out fi-probing --with-baselines": "test_suite_build.py::test_suite_folder_validates_and_every_config_loads",
    "polyprobe evaluate fi-probing --all --baselines --encoder minilm": "test_eval_many.py::test_minilm_is_named_by_its_model",
    "polyprobe build ud ../shared/data/ud/UD_English-EWT --lang en --sizes 10k": "test_build_ud.py::test_nested_sizes_and_shared_eval_splits",
    "polyprobe validate en-probing": "test_cli.py::test_demo_info_validate",
    "polyprobe info en-probing": "test_cli.py::test_demo_info_validate",
    "polyprobe build rst": "test_discourse_rst.py::test_build_rst_keeps_splits_and_validates",
    "polyprobe build unimorph": "test_build_unimorph.py::test_validate_and_every_config_loads",
    "polyprobe build parallel ../shared/data/ud/UD_*-PUD": "test_parallel_build.py::test_folder_validates_and_the_wide_config_loads",
    "polyprobe build parallel corpus.en corpus.de --line-ids": "test_parallel_text.py::test_ids_file_gives_ids_and_documents",
    "polyprobe build parallel en=flores.en.tsv": "test_parallel_text.py::test_id_aligned_tsv_in_other_orders_with_gaps",
    "polyprobe build ud ../shared/data/ud/UD_English-PUD --lang en --tasks pos,deprel": "test_ud_downstream.py::test_pos_rows_of_a_named_sentence",
    "polyprobe translate trec": "test_translate.py::test_translate_then_build_a_translated_trec",
    "polyprobe build trec ../shared/data/trec --lang de --translation": "test_translate.py::test_translate_then_build_a_translated_trec",
    "polyprobe build pairs argmin.tsv --preset ukp-argmin": "test_build_tabular.py::test_ukp_argmin_with_topic",
    "polyprobe build classification train=sst.tsv": "test_build_tabular.py::test_sentiment_tsv_one_file_per_split",
    "polyprobe build regression train=sts-train.tsv": "test_downstream_eval.py::test_sts_cosine_and_regression_head",
    'pip install "polyprobe[text]"': "test_first_hour.py::test_ci_runs_exactly_the_readme_quick_start",
    "polyprobe build wiki ../shared/data/wikipedia/enwiki-*.bz2": "test_build_wiki.py::test_english_dump_builds_with_card_counts",
    "polyprobe build text corpus/ --layout documents": "test_build_wiki.py::test_text_documents_layout_pairs_consecutive_sentences",
    "polyprobe build ud ../shared/data/ud/UD_English-EWT --lang en --top-up": "test_top_up.py::test_top_up_shares_groups_and_no_treebank_sentence",
    "polyprobe frequencies ../shared/data/wikipedia/enwiki-*.bz2": "test_wiki_frequencies.py::test_dump_counts_as_a_frequency_source",
    # on a single-node Slurm and a local Ray the tests start, bytes against a local build
    "apt-get install -y --no-install-recommends slurm-wlm munge": "test_first_hour.py::test_ci_runs_exactly_the_readme_quick_start",
    "polyprobe build wiki ../shared/data/wikipedia/enwiki-*.bz2 --lang en --out en-wiki-slurm": "test_cluster_engines.py::test_readme_slurm_recipe_on_a_real_slurm",
    "ray start --head": "test_cluster_engines.py::test_readme_ray_recipe_on_a_real_ray",
    "polyprobe build wiki ../shared/data/wikipedia/enwiki-*.bz2 --lang en --out en-wiki-ray": "test_cluster_engines.py::test_readme_ray_recipe_on_a_real_ray",
    "polyprobe evaluate en-probing --config subject_number": "test_eval_pretrained.py::test_st_and_hf_layerwise_through_evaluate",
    "polyprobe build trec ../shared/data/trec --out trec && polyprobe evaluate trec": "test_eval_trec.py::test_tables",
    "polyprobe correlate results": "test_eval_correlate.py::test_cli_correlate",
    "polyprobe publish en-probing --repo-id ORG/NAME --dry-run": "test_publish.py::test_dry_run_lists_one_commit_and_one_tag_and_writes_nothing",
    "polyprobe publish en-probing --repo-id ORG/NAME": "test_publish.py::test_publish_is_one_commit_then_one_tag",
    "polyprobe build ud ../shared/data/ud/UD_English-EWT --lang en --out en-1.0 --release 1.0.0": "test_release.py::test_card_has_release_and_changelog_and_stays_valid",
    "polyprobe build ud ../shared/data/ud/UD_English-EWT --lang en --profile changed.toml": "test_release.py::test_config_added_is_minor_removed_is_major",
    "polyprobe diff en-1.0 en-1.1": "test_release.py::test_diff_compares_label_names_and_inputs",
    "polyprobe export en-1.1 --format senteval": "test_release.py::test_senteval_export_round_trips",
    "polyprobe catalog": "test_release.py::test_catalog",
}


def readme_commands() -> list[str]:
    """The commands of the README's ``bash`` blocks: continuation lines joined, whitespace
    collapsed, a trailing ``# comment`` dropped, comment-only lines skipped."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    commands = []
    for block in re.findall(r"```bash\n(.*?)```", text, re.S):
        for line in block.replace("\\\n", " ").splitlines():
            line = re.sub(r"\s+#\s.*$", "", line).strip()
            if line and not line.startswith("#"):
                commands.append(" ".join(line.split()))
    return commands


def _covering(command: str) -> str | None:
    """The test covering ``command``: the longest key it starts with."""
    keys = [k for k in COVERED if command.startswith(k)]
    return COVERED[max(keys, key=len)] if keys else None


def test_every_readme_command_is_run_or_covered() -> None:
    commands = readme_commands()
    assert len(commands) > 40
    run = set(RUN)
    orphans = [c for c in commands if c not in run and _covering(c) is None]
    assert not orphans, "README commands neither run nor covered: " + "; ".join(orphans)
    assert run <= set(commands), "RUN names a command the README no longer has"


@pytest.mark.parametrize("test", sorted(set(COVERED.values())))
def test_each_covering_test_exists(test: str) -> None:
    module, name = test.split("::")
    tree = ast.parse((ROOT / "tests" / module).read_text(encoding="utf-8"))
    names = {n.name for n in tree.body if isinstance(n, ast.FunctionDef)}
    assert name in names, f"{test} does not exist"


def test_the_runnable_readme_commands_run_as_written(data_dir: Path, tmp_path: Path) -> None:
    """In ``work/`` beside ``shared/data``: init writes the shipped Finnish manifest; the
    lexical builds, their evaluation with the bundled baselines and the report run."""
    (tmp_path / "shared").mkdir()
    (tmp_path / "shared" / "data").symlink_to(data_dir.resolve(), target_is_directory=True)
    work = tmp_path / "work"
    work.mkdir()
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    script = "set -e\n" + "\n".join(RUN) + "\n"
    done = subprocess.run(
        ["bash", "-c", script], cwd=work, env=env, capture_output=True, text=True, timeout=900
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    shipped = ROOT / "polyprobe" / "suites" / "fi.toml"
    assert (work / "fi.toml").read_text(encoding="utf-8") == shipped.read_text(encoding="utf-8")
    for folder in ("en-similarity", "fi-multisimlex", "en-analogies", "fi-analogies"):
        assert (work / folder / "README.md").is_file(), folder
    for folder in ("sl-analogies", "fi-en-dictionary", "costra"):
        assert (work / folder / "README.md").is_file(), folder
    report = (work / "report" / "report.md").read_text(encoding="utf-8")
    assert "en-similarity" in report and "fi-analogies" in report
    assert str(work) not in report  # datasets by name, never by absolute path
