"""Releases on the Hugging Face Hub: ``publish`` a validated dataset folder as one commit plus
one version tag, and ``load`` a release back pinned to its tag, with its card checked.

Module names avoid ``load``/``publish`` so that importing them never shadows the functions
``polyprobe.load`` and ``polyprobe.hub.publish``."""

from __future__ import annotations

from polyprobe.hub.cardinfo import DEFAULT_RELEASE, card_release, release_tag
from polyprobe.hub.loading import (
    LoadedRelease,
    LocalLoadError,
    ReleaseMismatchError,
    ReleaseNotFoundError,
    UnknownConfigError,
    load,
)
from polyprobe.hub.publishing import PublishError, PublishPlan, plan_publish, publish
from polyprobe.hub.reach import HubUnreachableError

__all__ = [
    "DEFAULT_RELEASE",
    "HubUnreachableError",
    "LoadedRelease",
    "LocalLoadError",
    "PublishError",
    "PublishPlan",
    "ReleaseMismatchError",
    "ReleaseNotFoundError",
    "UnknownConfigError",
    "card_release",
    "load",
    "plan_publish",
    "publish",
    "release_tag",
]
