"""Typed specs of the retrievers, rerankers and extractors, parsed from their command-line spellings.

One registry per role (:data:`RETRIEVERS`, :data:`RERANKERS`, :data:`EXTRACTORS`). A spec is a small frozen
frozen dataclass (pydantic validates and writes it as its spelling, through the field types below; plain
dataclasses keep this module cheap to import, on the path of every command that loads ``retrieval``): its ``kind`` (the name before any ``:``) and, for the kinds that take one, an argument
(``finetuned:DIR``, ``cross-encoder:PATH``, ``rescore:SPEC``). The command line's choices and help, the
public API's parsing and the settings file's validation all read these registries, and the builders in
``claimtrace.retrieval`` dispatch on the spec's class; so a new retriever is one registered class here plus
its builder (``claimtrace.retrieval.pipeline``), and its spelling, help and checks follow::

    @RETRIEVERS.register
    class Splade(Spec, kind="splade", help="learned sparse retrieval"):
        '''SPLADE over the units.'''

Parsing keeps every spelling the CLI accepted before: ``RETRIEVERS.parse("hybrid-finetuned:models/x")``
is ``HybridFinetunedRetriever(arg="models/x")``, and ``str()`` of a spec gives the spelling back.
"""

from __future__ import annotations

import dataclasses
import inspect
from collections.abc import Iterator, Mapping
from typing import Annotated, Any, ClassVar, Generic, TypeVar, dataclass_transform

from pydantic import AfterValidator, PlainSerializer, PlainValidator

from claimtrace.errors import ClaimtraceError

__all__ = [
    "EXTRACTORS", "RERANKERS", "RETRIEVERS", "ExtractorSpec", "ExtractorSpelling", "RerankerSpec",
    "RerankerSpelling", "RetrieverSpec", "RetrieverSpelling", "Spec", "SpecRegistry",
]


@dataclass_transform(kw_only_default=True, frozen_default=True)
@dataclasses.dataclass(frozen=True, kw_only=True)
class Spec:
    """One component spec: ``kind`` and, where the kind takes one, its argument (a path or an inner spec).

    A subclass is a frozen, keyword-only dataclass too (made so when it is defined). It names its kind, and
    the class-level ``metavar``, ``optional_arg`` and ``help`` below, as class keywords
    (``class FinetunedRetriever(Spec, kind="finetuned", metavar="DIR")``), and declares its ``arg`` field."""

    kind: str = ""
    #: the argument's metavar in help and errors (``DIR``, ``PATH``, ``SPEC``); None: the kind takes none
    metavar: ClassVar[str | None] = None
    #: True: the argument may be left out (``cross-encoder`` and ``cross-encoder:PATH``)
    optional_arg: ClassVar[bool] = False
    #: a few words for ``--help`` (empty: the spelling says it all)
    help: ClassVar[str] = ""

    @classmethod
    def kind_name(cls) -> str:
        """The kind this class parses (the default of its ``kind`` field)."""
        return str(cls.__dataclass_fields__["kind"].default)

    @classmethod
    def spellings(cls) -> list[str]:
        """The command-line spellings of this kind (``finetuned:DIR``; ``cross-encoder``, ``cross-encoder:PATH``)."""
        name = cls.kind_name()
        if cls.metavar is None:
            return [name]
        return ([name] if cls.optional_arg else []) + [f"{name}:{cls.metavar}"]

    @classmethod
    def from_argument(cls, arg: str | None) -> Spec:
        """The spec of this kind with ``arg`` (the text after the first ``:``; None when there is none)."""
        return cls() if cls.metavar is None or arg is None else cls(arg=arg)  # type: ignore[call-arg]

    def __init_subclass__(cls, *, kind: str | None = None, metavar: str | None = None, optional_arg: bool = False,
                          help: str = "", **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if kind is not None:  # the kind becomes the default of its own ``kind`` field (what kind_name reads)
            cls.__annotations__ = {"kind": "str", **inspect.get_annotations(cls)}
            cls.kind = kind
            cls.metavar, cls.optional_arg, cls.help = metavar, optional_arg, help
        dataclasses.dataclass(frozen=True, kw_only=True)(cls)

    def __post_init__(self) -> None:
        if self.kind != self.kind_name():
            raise ValueError(f"{type(self).__name__} has kind {self.kind_name()!r}, not {self.kind!r}")
        arg = getattr(self, "arg", None)
        if self.metavar is not None and not self.optional_arg and not arg:
            raise ValueError(f"{self.kind} needs an argument ({self.kind}:{self.metavar})")

    def to_dict(self) -> dict[str, Any]:
        """The spec as a mapping (``kind`` and any argument, itself spelled); :meth:`SpecRegistry.parse` reads it."""
        return {f.name: str(v) if isinstance(v, Spec) else v
                for f in dataclasses.fields(self) if (v := getattr(self, f.name)) is not None or f.name == "kind"}

    def argument(self) -> str | None:
        """The argument as spelled after ``:`` (None: none)."""
        value = getattr(self, "arg", None)
        return None if value is None else str(value)

    def __str__(self) -> str:
        arg = self.argument()
        return self.kind if arg is None else f"{self.kind}:{arg}"


S = TypeVar("S", bound=Spec)


class SpecRegistry(Generic[S]):
    """The registered spec classes of one role (retriever, reranker, extractor), by kind."""

    def __init__(self, role: str) -> None:
        self.role = role
        self._kinds: dict[str, type[Spec]] = {}

    def register(self, cls: type[S]) -> type[S]:
        """Register a spec class (a decorator); its ``kind`` must be new to this role."""
        name = cls.kind_name()
        if name in self._kinds:
            raise ValueError(f"{self.role} {name!r} is registered twice")
        self._kinds[name] = cls
        return cls

    def __iter__(self) -> Iterator[type[Spec]]:
        return iter(self._kinds.values())

    def __contains__(self, kind: object) -> bool:
        return kind in self._kinds

    def kinds(self) -> tuple[str, ...]:
        """The registered kinds, in registration order."""
        return tuple(self._kinds)

    def spellings(self) -> tuple[str, ...]:
        """Every accepted spelling (``bm25``, ``finetuned:DIR``, ...), in registration order."""
        return tuple(s for cls in self._kinds.values() for s in cls.spellings())

    def expected(self) -> str:
        """The spellings as a list for an error message (``a, b or c``)."""
        spellings = self.spellings()
        return ", ".join(spellings[:-1]) + f" or {spellings[-1]}" if len(spellings) > 1 else spellings[0]

    def help(self, kinds: tuple[str, ...] | None = None) -> str:
        """The spellings with their few words of help, for ``--help`` (``kinds``: only these)."""
        parts = []
        for cls in self._kinds.values():
            if kinds is not None and cls.kind_name() not in kinds:
                continue
            first, *rest = cls.spellings()
            parts += [f"{first} ({cls.help})" if cls.help else first, *rest]
        return ", ".join(parts[:-1]) + f" or {parts[-1]}" if len(parts) > 1 else parts[0]

    def parse(self, value: str | Spec | Mapping[str, Any]) -> S:
        """A spec from its spelling (or a mapping with ``kind``, or a spec already); a one-line error otherwise."""
        if isinstance(value, Spec):
            if value.kind_name() not in self._kinds or type(value) is not self._kinds[value.kind_name()]:
                raise ClaimtraceError(f"{value} is not a {self.role} spec")
            return value  # type: ignore[return-value]
        if isinstance(value, Mapping):
            kind = str(value.get("kind", ""))
            if kind not in self._kinds:
                raise ClaimtraceError(f"unknown {self.role} {kind!r} (expected {self.expected()})")
            try:
                return self._kinds[kind](**dict(value))  # type: ignore[return-value]
            except (TypeError, ValueError) as exc:
                raise ClaimtraceError(f"bad {self.role} {dict(value)!r}: {exc}") from None
        text = str(value).strip()
        kind, sep, arg = text.partition(":")
        cls = self._kinds.get(kind)
        ok = cls is not None and (
            (cls.metavar is None and not sep) or (cls.metavar is not None and (bool(arg) or (cls.optional_arg and not sep))))
        if cls is None or not ok:
            raise ClaimtraceError(f"unknown {self.role} {text!r} (expected {self.expected()})")
        return cls.from_argument(arg if sep else None)  # type: ignore[return-value]


def _parser(registry: SpecRegistry[Any]) -> Any:
    """A pydantic validator: a spelling, a mapping or a spec in, the registry's spec out."""

    def parse(value: Any) -> Spec:
        try:
            return registry.parse(value)
        except ClaimtraceError as exc:
            raise ValueError(str(exc)) from None

    return PlainValidator(parse)


def _spelling(registry: SpecRegistry[Any]) -> Any:
    """A pydantic validator for a field kept as text: a spelling in, checked by the registry, spelt back out."""

    def check(value: str) -> str:
        try:
            return str(registry.parse(value))
        except ClaimtraceError as exc:
            raise ValueError(str(exc)) from None

    return AfterValidator(check)


#: the retrievers (``claimtrace retrieve --retriever``; built by ``claimtrace.retrieval.pipeline.get_retriever``)
RETRIEVERS: SpecRegistry[Spec] = SpecRegistry("retriever")
#: the rerankers (``--reranker``; built by ``claimtrace.retrieval.rerank.get_reranker``)
RERANKERS: SpecRegistry[Spec] = SpecRegistry("reranker")
#: the extractors (``claimtrace extract --extractor``, ``claimtrace run --extractor``)
EXTRACTORS: SpecRegistry[Spec] = SpecRegistry("extractor")


# ----------------------------------------------------------------------------------------------- retrievers
@RETRIEVERS.register
class DefaultRetriever(Spec, kind="default", help="evidence: two-stage; hypothesis: hybrid-trained"):
    """The task's default retriever."""


@RETRIEVERS.register
class TwoStageRetriever(Spec, kind="two-stage",
                        help="hybrid-trained, then the shipped cross-encoder over its top candidates"):
    """hybrid-trained candidates reranked by the shipped cross-encoder."""


@RETRIEVERS.register
class BM25Retriever(Spec, kind="bm25"):
    """BM25 over the units."""


@RETRIEVERS.register
class DenseRetriever(Spec, kind="dense"):
    """MiniLM bi-encoder retrieval."""


@RETRIEVERS.register
class HybridRetriever(Spec, kind="hybrid"):
    """BM25 + dense, fused by RRF."""


@RETRIEVERS.register
class TrainedRetriever(Spec, kind="trained"):
    """The shipped trained retriever."""


@RETRIEVERS.register
class HybridTrainedRetriever(Spec, kind="hybrid-trained", help="BM25 fused with the shipped trained retriever"):
    """BM25 fused with the shipped trained retriever."""


@RETRIEVERS.register
class FinetunedRetriever(Spec, kind="finetuned", metavar="DIR"):
    """A fine-tuned bi-encoder from a model folder."""

    arg: str


@RETRIEVERS.register
class HybridFinetunedRetriever(Spec, kind="hybrid-finetuned", metavar="DIR"):
    """BM25 fused with a fine-tuned bi-encoder from a model folder."""

    arg: str


#: a retriever spec as a pydantic field (a spelling in, the spec kept, the spelling written out)
RetrieverSpec = Annotated[Spec, _parser(RETRIEVERS), PlainSerializer(str, return_type=str)]
#: a retriever spelling as a pydantic field kept as text (checked by the registry, e.g. an experiment config's)
RetrieverSpelling = Annotated[str, _spelling(RETRIEVERS)]


# ----------------------------------------------------------------------------------------------- rerankers
@RERANKERS.register
class NoReranker(Spec, kind="none"):
    """No reranking."""


@RERANKERS.register
class CrossEncoderReranker(Spec, kind="cross-encoder", metavar="PATH", optional_arg=True, help="the shipped model"):
    """A cross-encoder: the shipped one, or one from a model folder."""

    arg: str | None = None


@RERANKERS.register
class FinetunedReranker(Spec, kind="finetuned", metavar="DIR", help="rescore the M candidates"):
    """Rescoring of the candidates by a fine-tuned bi-encoder."""

    arg: str


@RERANKERS.register
class LLMReranker(Spec, kind="llm"):
    """RankGPT listwise reranking by the configured LLM."""


@RERANKERS.register
class DenseReranker(Spec, kind="dense", help="MiniLM rescoring"):
    """Rescoring of the candidates by the MiniLM bi-encoder."""


@RERANKERS.register
class RescoreReranker(Spec, kind="rescore", metavar="SPEC", help="a retriever run over the candidates"):
    """A retriever re-run over the candidates alone (``rescore:bm25``, ``rescore:hybrid-finetuned:DIR``)."""

    arg: Spec

    def __post_init__(self) -> None:
        object.__setattr__(self, "arg", RETRIEVERS.parse(self.arg))  # SPEC is a retriever spec (or its spelling)
        super().__post_init__()


#: a reranker spec as a pydantic field
RerankerSpec = Annotated[Spec, _parser(RERANKERS), PlainSerializer(str, return_type=str)]
#: a reranker spelling as a pydantic field kept as text (checked by the registry, e.g. an experiment config's)
RerankerSpelling = Annotated[str, _spelling(RERANKERS)]


# ----------------------------------------------------------------------------------------------- extractors
@EXTRACTORS.register
class EmbeddedExtractor(Spec, kind="embedded", help="offline"):
    """The embedded offline extractor (no LLM)."""


@EXTRACTORS.register
class LLMExtractor(Spec, kind="llm"):
    """The LLM extractor (needs a configured LLM)."""


#: an extractor spec as a pydantic field
ExtractorSpec = Annotated[Spec, _parser(EXTRACTORS), PlainSerializer(str, return_type=str)]
#: a extractor spelling as a pydantic field kept as text (checked by the registry, e.g. an experiment config's)
ExtractorSpelling = Annotated[str, _spelling(EXTRACTORS)]
