"""The spine's second step: every task of a plan configured, once, in the build's process.

A task's options, lowest first: the stream's (or lexicon's) defaults, the profile's
``[tasks.<name>]``, what the family's options give that one task (``--unimorph`` for
``subject_verb_agreement``), the config's ``task_options``. Its context: the build's language (or the stream's), seed, class floors and split,
and the language facts the stream derives from its records (a profile's ``[language]``
wins). The profile's tables are checked against the family's tasks before any input is read
(:func:`checked`), for every family alike.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence
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
    rename: Callable[[str], str] | None = None,
) -> OpenedStream:
    """``stream``'s tasks configured, with its profile entry; ``rename`` gives the name each
    task is published under (its configs' and report entry's)."""
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
        task = stream.adapt(published, task) if stream.adapt is not None else task
        tasks.append(renamed(task, rename))
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
    rename: Callable[[str], str] | None = None,
) -> list[Task[Any]]:
    """The lexicon's tasks configured (its defaults apply to every task)."""
    context = TaskContext(
        lang=config.language.code,
        seed=config.seed,
        min_per_class=config.min_per_class.as_tuple(),
        split=context_split(split),
    )
    return [
        renamed(
            configured(task_set.get(n), context, config, profile, defaults=lexicon.defaults), rename
        )  # fmt: skip
        for n in lexicon.tasks
    ]


def renamed(task: Task[Any], rename: Callable[[str], str] | None) -> Task[Any]:
    """``task`` published under ``rename(name)`` (its metadata replaced on the instance; the
    class and every other build keep theirs). Its rows do not change: it keeps its own name
    as its identity (:attr:`Task.identity`)."""
    if rename is None or rename(task.metadata.name) == task.metadata.name:
        return task
    task.identity = task.name
    meta = task.metadata
    task.metadata = dataclasses.replace(  # type: ignore[misc]
        meta, name=rename(meta.name), config=rename(meta.config_name)
    )
    return task


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
