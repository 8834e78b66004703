"""One router per JobEdge: which consumer subtask each record goes to, exactly as Flink.

A router is the StreamPartitioner of one JobEdge, for one producer subtask at a time
(`route(producer_subtask, records)`). Its channels are the consumer subtasks the
producer's result partition is read by, in subpartition order, from the
ExecutionGraph (`compiler.execution`):

- FORWARD and RESCALE are pointwise: the producer's consumer group; subpartition j
  is read by the consumer c of the group with `c % len(group) == j`, Flink's rule.
  RESCALE sends round-robin from channel 0 (`RescalePartitioner`).
- REBALANCE starts at a random channel and then goes round-robin, the first record
  to `start + 1` (`RebalancePartitioner`); SHUFFLE picks a random channel per record.
  Both draw from a generator seeded by (run seed, data set, producer subtask), so a
  run is reproducible from its seed, a recomputed Spark partition routes exactly as
  before, and consumers of one reused data set see one placement, as in Flink.
- HASH is keyBy: `compiler.keygroups` with the consumer's effective max parallelism,
  memoized per (max parallelism, parallelism) with an LRU cache (typed: `True` and
  `1` are different Java keys) and a plain dict of str and int keys (`KeyRouter`).
  Keys must be int, str or bool (Java Integer or Long, String, Boolean), or a tuple
  of them (Flink's TupleN, nested tuples too); an int that fits 32 bits is an
  Integer, a longer one a Long.
  A HASH edge without a key routes by Flink's `NullByteKeySelector` (windowAll).
- BROADCAST sends every record to every channel; GLOBAL to subtask 0.
- CUSTOM calls the edge's `partition` expression with the key and the channel count.

Routers are picklable (they are part of the run plan shipped to Spark workers);
their caches are rebuilt where they land.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from compiler.execution import ExecutionEdge
from compiler.keygroups import assign_key_to_parallel_operator
from compiler.model import DistributionPattern, Partitioner
from runtime.expressions import Expression

KEY_TYPES = (int, str, bool, tuple)
KEY_TYPES_TEXT = "keys must be int, str, bool or a tuple of them"
HASH_CACHE_SIZE = 1 << 16
"""Keys remembered per (max parallelism, parallelism): the Python murmur hash costs
microseconds, a cache hit a tenth of that, and real keys repeat."""
NULL_BYTE_KEY = 0
"""`NullByteKeySelector`'s key: Byte 0, whose hashCode is 0 like Integer 0."""


class RoutingError(ValueError):
    """A record that cannot be routed: a key of the wrong type, a bad custom channel."""


@dataclass(frozen=True, slots=True)
class Router:
    """The partitioner of one JobEdge."""

    partitioner: Partitioner
    producer_parallelism: int
    consumer_parallelism: int
    consumer_max_parallelism: int
    channels_of: tuple[tuple[int, ...], ...]
    """Per producer subtask: the consumer subtask of each channel (subpartition)."""
    seed: int
    """Derived from the run's seed and the data set: REBALANCE starts, SHUFFLE draws."""
    key: Expression | None = None
    """HASH and CUSTOM: the key selector, a function of the record `x`."""
    partition: Expression | None = None
    """CUSTOM: the channel for `key` among `n`."""
    consumer: str = ""
    """The consuming operator, for error messages: `Reduce (node 6)`."""

    def channels(self, producer_subtask: int) -> tuple[int, ...]:
        return self.channels_of[producer_subtask]

    def rebalance_start(self, producer_subtask: int) -> int:
        """The channel before the first one REBALANCE uses (Flink's random start)."""
        return self.random(producer_subtask).randrange(self.consumer_parallelism)

    def random(self, producer_subtask: int) -> random.Random:
        """The generator of one producer subtask (REBALANCE start, SHUFFLE draws)."""
        digest = hashlib.blake2b(f"{self.seed}:{producer_subtask}".encode(), digest_size=8).digest()
        return random.Random(int.from_bytes(digest, "big"))

    def subtask_of_key(self) -> KeyRouter:
        """key -> consumer subtask, memoized; raises RoutingError for other key types."""
        return _key_router(self.consumer_max_parallelism, self.consumer_parallelism)

    def custom_channel(self) -> Callable[[Any], int]:
        """key -> consumer subtask through the edge's `partition` expression."""
        partition = self.partition
        if partition is None:
            raise RoutingError(f"the CUSTOM edge into {self.consumer} has no partition function")
        count = self.consumer_parallelism
        function = partition.function

        def channel(key: Any) -> int:
            value = function(key, count)
            if type(value) is not int or not 0 <= value < count:
                raise RoutingError(
                    f"the partition function gave {value!r} for key {key!r}; it must be a "
                    f"subtask index from 0 to {count - 1}"
                )
            return value

        return channel

    def route(self, producer_subtask: int, records: Iterable[Any]) -> Iterator[tuple[int, Any]]:
        """(consumer subtask, record) for every record one producer subtask sends."""
        where = f"{self.partitioner.value} edge into {self.consumer}"
        try:
            yield from self._route(producer_subtask, records)
        except RoutingError as error:
            raise RoutingError(f"{where}: {error}") from None
        except TypeError as error:  # an unhashable key
            if self.partitioner is not Partitioner.HASH:
                raise
            raise RoutingError(f"{where}: {error}; {KEY_TYPES_TEXT}") from None
        except Exception as error:  # the key or partition expression failed
            raise RoutingError(f"{where}: {type(error).__name__}: {error}") from error

    def _route(self, producer_subtask: int, records: Iterable[Any]) -> Iterator[tuple[int, Any]]:
        kind = self.partitioner
        channels = self.channels_of[producer_subtask]
        if kind is Partitioner.HASH:
            subtask = self.subtask_of_key()
            if self.key is None:
                target = subtask(NULL_BYTE_KEY)
                for record in records:
                    yield target, record
                return
            key = self.key.function
            fast = subtask.fast
            for record in records:
                value = key(record)
                kind = value.__class__
                known = fast.get(value) if kind is str or kind is int else None
                yield subtask(value) if known is None else known, record
        elif kind in (Partitioner.FORWARD, Partitioner.RESCALE):
            count = len(channels)
            if count == 1:
                target = channels[0]
                for record in records:
                    yield target, record
                return
            position = -1
            for record in records:
                position = position + 1 if position + 1 < count else 0
                yield channels[position], record
        elif kind is Partitioner.REBALANCE:
            count = self.consumer_parallelism
            position = self.rebalance_start(producer_subtask)
            for record in records:
                position = (position + 1) % count
                yield position, record
        elif kind is Partitioner.SHUFFLE:
            count = self.consumer_parallelism
            draw = self.random(producer_subtask).random
            for record in records:
                yield int(draw() * count), record
        elif kind is Partitioner.BROADCAST:
            for record in records:
                for target in channels:
                    yield target, record
        elif kind is Partitioner.GLOBAL:
            for record in records:
                yield 0, record
        elif kind is Partitioner.CUSTOM:
            channel = self.custom_channel()
            key = self.key.function if self.key is not None else _identity
            for record in records:
                yield channel(key(record)), record
        else:  # pragma: no cover - every Partitioner is handled above
            raise RoutingError(f"no router for {kind.value}")


def _identity(value: Any) -> Any:
    return value


class KeyRouter:
    """key -> subtask of one (max parallelism, parallelism), exactly Flink's.

    Calling it validates the key's type and computes through an LRU cache typed by
    key type (`True` and `1` are different Java keys). A tuple key is cached under the
    classes of its fields as well, since `typed` looks at the tuple's class only and
    `(1, True) == (1, 1)` in Python while Flink hashes them apart. `fast` is a plain
    dict of the str and int keys seen so far, which generated chains read inline
    before calling: a dict lookup costs a third of a typed LRU hit, and a str or int
    key (checked by exact class, so never a bool or a float) cannot collide with
    another type there.
    """

    def __init__(self, max_parallelism: int, parallelism: int) -> None:
        self.max_parallelism = max_parallelism
        self.parallelism = parallelism
        self.fast: dict[Any, int] = {}
        self.compute = lru_cache(maxsize=HASH_CACHE_SIZE, typed=True)(self._compute)
        self.compute_tuple = lru_cache(maxsize=HASH_CACHE_SIZE)(self._compute_tuple)

    def __call__(self, key: Any) -> int:
        kind = key.__class__
        if kind is tuple:
            return self.compute_tuple(_field_classes(key), key)
        subtask: int = self.compute(key)
        if (kind is str or kind is int) and len(self.fast) < HASH_CACHE_SIZE:
            self.fast[key] = subtask
        return subtask

    def _compute_tuple(self, field_classes: object, key: tuple[Any, ...]) -> int:
        """`field_classes` only tells tuples of equal values but different types apart."""
        return self._compute(key)

    def _compute(self, key: Any) -> int:
        if type(key) not in KEY_TYPES:
            raise RoutingError(f"the key {key!r} is a {type(key).__name__}; {KEY_TYPES_TEXT}")
        try:
            return assign_key_to_parallel_operator(key, self.max_parallelism, self.parallelism)
        except ValueError as error:  # an int beyond 64 bits, a tuple beyond 25 fields
            raise RoutingError(str(error)) from None


def _field_classes(key: tuple[Any, ...]) -> tuple[object, ...]:
    """The classes of a tuple key's fields, nested tuples spelled out; raises
    RoutingError for a field that is not a key, before anything is cached."""
    classes: list[object] = []
    for field in key:
        kind = field.__class__
        if kind is tuple:
            classes.append(_field_classes(field))
        elif kind in KEY_TYPES:
            classes.append(kind)
        else:
            raise RoutingError(
                f"the key {key!r} has a field {field!r} that is a {kind.__name__}; {KEY_TYPES_TEXT}"
            )
    return tuple(classes)


@lru_cache(maxsize=256)
def _key_router(max_parallelism: int, parallelism: int) -> KeyRouter:
    """One `KeyRouter` per (max parallelism, parallelism) and process."""
    return KeyRouter(max_parallelism, parallelism)


def edge_seed(run_seed: int, data_set: str) -> int:
    """The seed of one data set's routers: consumers of a reused data set share it."""
    digest = hashlib.blake2b(f"{run_seed}:{data_set}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big")


def channels_of(edge: ExecutionEdge) -> tuple[tuple[int, ...], ...]:
    """Per producer subtask, the consumer subtask reading each of its subpartitions."""
    if edge.pattern is DistributionPattern.ALL_TO_ALL:
        # Subpartition c is read by consumer c; one shared tuple (pickled once).
        every = tuple(range(edge.consumer_parallelism))
        return tuple(every for _ in range(edge.producer_parallelism))
    result: list[tuple[int, ...]] = []
    for partition in range(edge.producer_parallelism):
        group = edge.group_of_partition(partition)
        channels = [0] * len(group.consumers)
        for consumer in group.consumers:
            channels[edge.subpartitions_read_by(consumer).start] = consumer
        result.append(tuple(channels))
    return tuple(result)


def make_router(
    edge: ExecutionEdge,
    *,
    consumer_max_parallelism: int,
    seed: int,
    key: Expression | None,
    partition: Expression | None,
    consumer: str,
) -> Router:
    return Router(
        partitioner=edge.job_edge.ship_strategy,
        producer_parallelism=edge.producer_parallelism,
        consumer_parallelism=edge.consumer_parallelism,
        consumer_max_parallelism=consumer_max_parallelism,
        channels_of=channels_of(edge),
        seed=seed,
        key=key,
        partition=partition,
        consumer=consumer,
    )
