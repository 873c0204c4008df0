"""The spine's second step: every task of a plan configured, once, in the build's process.

A task's options, lowest first: the stream's (or lexicon's) defaults, the profile's
``[tasks.<name>]``, what the family's options give that one task (``--unimorph`` for
``subject_verb_agreement``), the config's ``task_options``. Its context: the build's language (or the stream's), seed, class floors and split,
and the language facts the stream derives from its records (a profile's ``[language]``
wins). The profile's tables are checked against the family's tasks before any input is read
(:func:`checked`), for every family alike.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from polyprobe.builders.execution.stream import OpenedStream
from polyprobe.builders.family import Lexicon, Stream, TaskSet
from polyprobe.builders.options import BuildConfig
from polyprobe.builders.task import Task, TaskContext
from polyprobe.builders.variants import SplitSpec


def checked(config: BuildConfig, task_set: TaskSet, names: Sequence[str]) -> dict[str, Any] | None:
    """The config's profile (None without one), every ``[tasks.*]`` table checked against
    its task's options before any input is read, with the file's name (the card records
    it)."""
    if config.profile is None:
        return None
    from polyprobe.builders.profile import checked_profile

    profile = checked_profile(config.profile, task_set.with_made(names))
    return {"file": config.profile.name, **profile}


def context_split(split: SplitSpec) -> str:
    """What a task's context calls the split: ``ud`` where records carry their own split
    (treebank, document or source splits: the engine estimates them alike), else the label."""
    return "ud" if split.mode == "ud" else split.label


def open_stream(
    stream: Stream,
    task_set: TaskSet,
    config: BuildConfig,
    split: SplitSpec,
    profile: Mapping[str, Any] | None,
) -> OpenedStream:
    """``stream``'s tasks configured, with its profile entry."""
    assert stream.records is not None
    lang = stream.lang or config.language.code
    language: dict[str, Any] | None = None
    if stream.language is not None:
        language = stream.language(stream.records)
        language.update((profile or {}).get("language", {}))
    context = TaskContext(
        lang=lang,
        seed=config.seed,
        capitalises_nouns=bool(language and language["capitalises_nouns"]),
        keep_case_forms=frozenset(language["keep_case_forms"] if language else ()),
        min_per_class=config.min_per_class.as_tuple(),
        split=context_split(split),
    )
    tasks = []
    for published in stream.tasks:
        name = stream.task_of(published) if stream.task_of is not None else published
        task = configured(
            task_set.get(name),
            context,
            config,
            profile,
            defaults=stream.defaults.get(name, {}),
            given=stream.given.get(name, {}),
        )
        tasks.append(stream.adapt(published, task) if stream.adapt is not None else task)
    entry: dict[str, Any] = {"lang": lang}
    if language is not None:
        entry["language"] = language
    entry["tasks"] = {}
    entry.update(stream.extra_profile)
    if profile is not None:
        entry["overrides"] = dict(profile)
    return OpenedStream(stream.records, tuple(tasks), entry)


def open_lexicon(
    lexicon: Lexicon,
    task_set: TaskSet,
    config: BuildConfig,
    split: SplitSpec,
    profile: Mapping[str, Any] | None,
) -> list[Task[Any]]:
    """The lexicon's tasks configured (its defaults apply to every task)."""
    context = TaskContext(
        lang=config.language.code,
        seed=config.seed,
        min_per_class=config.min_per_class.as_tuple(),
        split=context_split(split),
    )
    return [
        configured(task_set.get(n), context, config, profile, defaults=lexicon.defaults)
        for n in lexicon.tasks
    ]


def configured(
    cls: type[Task[Any]],
    context: TaskContext,
    config: BuildConfig,
    profile: Mapping[str, Any] | None,
    *,
    defaults: Mapping[str, Any],
    given: Mapping[str, Any] | None = None,
) -> Task[Any]:
    name = cls.metadata.name
    tables = (profile or {}).get("tasks", {})
    raw = {
        **defaults,
        **tables.get(name, {}),
        **(given or {}),
        **config.task_options.get(name, {}),
    }
    return cls.configure(raw, context)
