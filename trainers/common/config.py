"""One way to configure RAFS from the command line: a file (YAML or JSON) and/or flags, read by one loader.

Every command that scores (``rafs score``, ``filter``, ``eval``, ``audit``, ``serve``) and the training recipes take
the scorer's settings (:class:`rewards.RAFSConfig`) the same way:

* ``--config FILE``: a YAML (``.yaml``/``.yml``) or JSON (``.json``) mapping of ``RAFSConfig`` fields, e.g.
  ``tau_accept: 70``; a key may also be spelled with dashes (``tau-accept``), and the fields may sit in a nested
  ``rafs:`` block. A command may allow its own options in the same file (``rafs filter``: ``min_rafs``, ...);
* ``--rafs.FIELD VALUE`` (one flag per field, e.g. ``--rafs.tau_accept 70 --rafs.weights P_R=0.5,S_RA=0.5``):
  overrides the file. Values are read as the field's type: numbers, ``true``/``false``, ``none`` for an optional
  field, and for ``weights`` a JSON/YAML mapping (``'{"P_R": 0.5}'``) or ``KEY=VALUE,KEY=VALUE``.

The valid keys are the fields of :class:`rewards.RAFSConfig` (read from the dataclass, not a list kept here); an
unknown key, a value of the wrong type or a value out of range is a :class:`trainers.cli.CommandError` of one line
that names the key, where it came from and the fix; an unknown ``--rafs.KEY`` flag gets the same line
(:func:`unknown_key_error`), with the closest valid key and the list of valid keys.

>>> load_rafs_config({"tau_accept": 70}, {"theta_step": "0.4"}).tau_accept
70.0
>>> load_rafs_config(None, {"theta_step": "0.4"}).theta_step
0.4
>>> load_rafs_config({"tau_acept": 70})
Traceback (most recent call last):
...
trainers.common.errors.CommandError: unknown config key 'tau_acept' in the mapping given; did you mean 'tau_accept'? \
valid keys: counterfactual_agreement, derivation_function, embedding_model, ...
"""

from __future__ import annotations

import argparse
import dataclasses
import difflib
import json
import os
import re
import types
import typing
from pathlib import Path
from typing import Any, Iterable, Mapping

from trainers.common.errors import CommandError

__all__ = ["load_rafs_config", "load_command_config", "read_config_file", "rafs_fields", "add_config_arguments",
           "config_from_args", "rafs_overrides_from_args", "config_to_dict", "unknown_key_error",
           "unknown_flag_error", "RAFS_FLAG_PREFIX"]

RAFS_FLAG_PREFIX = "--rafs."
_DEST_PREFIX = "rafs__"
_NONE_WORDS = ("none", "null", "~")
_TRUE_WORDS = ("true", "yes", "on", "1")
_FALSE_WORDS = ("false", "no", "off", "0")


def _config_class():
    from rewards import RAFSConfig

    return RAFSConfig


def rafs_fields() -> dict[str, Any]:
    """``{field name: resolved type}`` of :class:`rewards.RAFSConfig`, in declaration order.

    >>> list(rafs_fields())[:3]
    ['weights', 'lam', 'smooth']
    """
    cls = _config_class()
    hints = typing.get_type_hints(cls)
    return {f.name: hints[f.name] for f in dataclasses.fields(cls) if f.init}


def _field_help() -> dict[str, str]:
    """One line of help per field, from the ``Attributes:`` section of RAFSConfig's docstring."""
    doc = _config_class().__doc__ or ""
    out: dict[str, str] = {}
    section = doc.split("Attributes:", 1)[1] if "Attributes:" in doc else ""
    current = None
    for line in section.splitlines():
        m = re.match(r"^\s{8}(\w+):\s*(.*)$", line)
        if m:
            current = m.group(1)
            out[current] = m.group(2).strip()
        elif current and line.strip():
            out[current] += " " + line.strip()
    for name, text in out.items():  # first sentence only: the terminal help stays short
        out[name] = re.split(r"(?<=\.)\s", text, maxsplit=1)[0].rstrip(".")
    return out


def _type_name(tp: Any) -> str:
    origin = typing.get_origin(tp)
    if origin in (typing.Union, types.UnionType):
        args = [a for a in typing.get_args(tp) if a is not type(None)]
        inner = " | ".join(_type_name(a) for a in args)
        return f"{inner} or none" if type(None) in typing.get_args(tp) else inner
    if origin is not None and _is_mapping(origin):
        k, v = typing.get_args(tp) or (Any, Any)
        return f"mapping of {_type_name(k)} to {_type_name(v)}"
    return {float: "number", int: "integer", bool: "true/false", str: "text"}.get(tp, getattr(tp, "__name__", str(tp)))


def _is_mapping(origin: Any) -> bool:
    try:
        return issubclass(origin, Mapping)
    except TypeError:
        return False


def _parse_text(text: str, tp: Any) -> Any:
    """A flag's text as a value of type ``tp`` (raises ValueError when it cannot be one)."""
    origin = typing.get_origin(tp)
    if origin in (typing.Union, types.UnionType):
        args = typing.get_args(tp)
        if type(None) in args and text.strip().lower() in _NONE_WORDS:
            return None
        errors = []
        for arg in (a for a in args if a is not type(None)):
            try:
                return _parse_text(text, arg)
            except ValueError as exc:
                errors.append(str(exc))
        raise ValueError("; ".join(errors))
    if origin is not None and _is_mapping(origin):
        import yaml

        try:
            data = yaml.safe_load(text)
        except yaml.YAMLError:
            data = None
        if not isinstance(data, Mapping):
            data = {}
            for part in filter(None, (p.strip() for p in text.split(","))):
                key, sep, value = part.partition("=")
                if not sep or not key.strip():
                    raise ValueError(f"{text!r} is not a mapping; write '{{\"P_R\": 0.5}}' or P_R=0.5,S_RA=0.5")
                data[key.strip()] = value.strip()
        _, vtp = typing.get_args(tp) or (Any, Any)
        return {str(k): (_parse_text(v, vtp) if isinstance(v, str) else v) for k, v in data.items()}
    if tp is bool:
        word = text.strip().lower()
        if word in _TRUE_WORDS:
            return True
        if word in _FALSE_WORDS:
            return False
        raise ValueError(f"{text!r} is not true or false")
    if tp is int:
        try:
            return int(text.strip())
        except ValueError:
            raise ValueError(f"{text!r} is not an integer") from None
    if tp is float:
        try:
            return float(text.strip())
        except ValueError:
            raise ValueError(f"{text!r} is not a number") from None
    return text


def _check_value(value: Any, tp: Any) -> Any:
    """``value`` if it is of type ``tp`` (an int is taken as a float); raises ValueError otherwise."""
    origin = typing.get_origin(tp)
    if tp is Any:
        return value
    if origin in (typing.Union, types.UnionType):
        args = typing.get_args(tp)
        if value is None and type(None) in args:
            return None
        for arg in (a for a in args if a is not type(None)):
            try:
                return _check_value(value, arg)
            except ValueError:
                continue
        raise ValueError(f"{value!r} is not {_type_name(tp)}")
    if origin is not None and _is_mapping(origin):
        if not isinstance(value, Mapping):
            raise ValueError(f"{value!r} is not a mapping (e.g. {{P_R: 0.5, S_RA: 0.5}})")
        ktp, vtp = typing.get_args(tp) or (Any, Any)
        return {_check_value(k, ktp): _check_value(v, vtp) for k, v in value.items()}
    if tp is bool:
        if isinstance(value, bool):
            return value
        raise ValueError(f"{value!r} is not true or false")
    if tp is int:
        if isinstance(value, int) and not isinstance(value, bool):
            return value
        raise ValueError(f"{value!r} is not an integer")
    if tp is float:
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return float(value)
        raise ValueError(f"{value!r} is not a number")
    if tp is str:
        if isinstance(value, str):
            return value
        raise ValueError(f"{value!r} is not text")
    if isinstance(tp, type) and not isinstance(value, tp):
        raise ValueError(f"{value!r} is not {_type_name(tp)}")
    return value


def _norm(key: Any) -> str:
    return str(key).strip().replace("-", "_")


def read_config_file(path: str | os.PathLike, *, flag: str = "--config") -> dict[str, Any]:
    """The mapping in a YAML or JSON file (chosen by the suffix; YAML otherwise, which reads JSON too), or a
    one-line :class:`CommandError` for a missing file, a folder, unreadable text or a non-mapping.

    >>> import pathlib, tempfile
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "c.json"
    >>> _ = p.write_text('{"tau_accept": 70}')
    >>> read_config_file(p)
    {'tau_accept': 70}
    """
    p = Path(path)
    if not p.exists():
        raise CommandError(f"{flag} {str(path)!r} does not exist; pass a YAML or JSON file of RAFSConfig fields")
    if p.is_dir():
        raise CommandError(f"{flag} {str(path)!r} is a folder; pass a YAML or JSON file")
    try:
        text = p.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise CommandError(f"{flag} {str(path)!r} cannot be read ({getattr(exc, 'strerror', None) or exc})") from None
    if p.suffix.lower() == ".json":
        try:
            data = json.loads(text) if text.strip() else None
        except json.JSONDecodeError as exc:
            raise CommandError(f"{flag} {str(path)!r} is not valid JSON ({exc.msg} at line {exc.lineno})") from None
    else:
        import yaml

        try:
            data = yaml.safe_load(text)
        except yaml.YAMLError as exc:
            raise CommandError(f"{flag} {str(path)!r} is not valid YAML: {str(exc).splitlines()[0]}") from None
    if data is None:
        return {}
    if not isinstance(data, Mapping):
        raise CommandError(f"{flag} {str(path)!r} must hold a mapping of key: value, got {type(data).__name__}")
    return dict(data)


def unknown_key_error(key: Any, origin: str, valid: Iterable[str]) -> CommandError:
    """The one-line error for an unknown config ``key`` found in ``origin`` (a file, a mapping, a flag): the key, the
    closest of the ``valid`` keys, and all of them. The same wording for a ``--config`` file and a ``--rafs.KEY``
    flag (:func:`trainers.cli.main` uses it for an unknown flag).

    >>> str(unknown_key_error("tau_acept", "the flag --rafs.tau_acept", ["tau_accept", "theta_step"]))
    "unknown config key 'tau_acept' in the flag --rafs.tau_acept; did you mean 'tau_accept'? valid keys: \
tau_accept, theta_step"
    """
    valid = sorted(set(valid))
    close = difflib.get_close_matches(_norm(key), valid, n=1) or [
        v for v in valid if _norm(key) and v.startswith(_norm(key))]  # an abbreviation: --rafs.tau
    if len(close) > 1:
        hint = f"; did you mean one of {', '.join(map(repr, close))}?"
    else:
        hint = f"; did you mean {close[0]!r}?" if close else ";"
    return CommandError(f"unknown config key {str(key)!r} in {origin}{hint} valid keys: {', '.join(valid)}")


def unknown_flag_error(token: str) -> CommandError:
    """The one-line error for an unknown ``--rafs.KEY`` flag (``token`` as typed, ``--rafs.KEY`` or
    ``--rafs.KEY=VALUE``): :func:`unknown_key_error` over the fields of ``RAFSConfig``. :func:`add_config_arguments`
    hands it to :func:`trainers.cli.main`, which prints it for a flag argparse did not recognise.

    >>> message = str(unknown_flag_error("--rafs.tau=99"))
    >>> message.startswith("unknown config key 'tau' in the flag --rafs.tau; did you mean 'tau_accept'? valid keys:")
    True
    """
    flag = token.split("=", 1)[0]
    return unknown_key_error(flag[len(RAFS_FLAG_PREFIX):], f"the flag {flag}", rafs_fields())


def _typed(name: str, value: Any, tp: Any, origin: str, *, text: bool) -> Any:
    try:
        if text and isinstance(value, str) and tp is not str:
            value = _parse_text(value, tp)
        return _check_value(value, tp)
    except ValueError as exc:
        raise CommandError(f"RAFS config key {name!r} in {origin}: {exc}; expected {_type_name(tp)}") from None


def _inline(text: str, flag: str) -> dict[str, Any]:
    """An inline JSON/YAML mapping (``'{"tau_accept": 70}'``), e.g. a recipe value or ``--rafs-config``."""
    import yaml

    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise CommandError(f"{flag} {text[:60]!r} is not a valid JSON/YAML mapping: "
                           f"{str(exc).splitlines()[0]}") from None
    if not isinstance(data, Mapping):
        raise CommandError(f"{flag} {text[:60]!r} must be a mapping of RAFSConfig fields, got {type(data).__name__}")
    return dict(data)


def _describe(source: Any) -> str:
    if source is None:
        return "the defaults"
    if isinstance(source, Mapping):
        return "the mapping given"
    if isinstance(source, str) and source.lstrip().startswith("{"):
        return "the inline mapping"
    return f"config file {str(source)!r}"


def load_command_config(source: str | os.PathLike | Mapping[str, Any] | None = None,
                        overrides: Mapping[str, Any] | None = None, *,
                        extra_keys: Iterable[str] = (), aliases: Mapping[str, str] | None = None,
                        flag: str = "--config", overrides_origin: str = "the command line",
                        ) -> tuple[Any, dict[str, Any]]:
    """``(RAFSConfig, command options)`` from a config file or mapping plus ``overrides``.

    ``extra_keys`` are the command's own options a file may also set (``rafs filter``'s ``min_rafs``, ...); they are
    returned untouched in the second item (keys normalised: ``-`` -> ``_``, ``aliases`` applied). Everything else
    must be a :class:`rewards.RAFSConfig` field: in the file (top level, or a nested ``rafs:`` block) or in
    ``overrides`` (a mapping from flags: text values are read as the field's type, ``None`` values are skipped).

    >>> cfg, extra = load_command_config({"min_rafs": 80, "tau-accept": 70}, extra_keys=["min_rafs"])
    >>> cfg.tau_accept, extra
    (70.0, {'min_rafs': 80})
    """
    fields = rafs_fields()
    extra = {_norm(k) for k in extra_keys}
    aliases = {_norm(k): _norm(v) for k, v in (aliases or {}).items()}
    valid = set(fields) | extra
    if source is None:
        data: dict[str, Any] = {}
    elif isinstance(source, Mapping):
        data = dict(source)
    elif isinstance(source, str) and source.lstrip().startswith("{"):
        data = _inline(source, flag)
    elif isinstance(source, (str, os.PathLike)):
        data = read_config_file(source, flag=flag)
    else:
        raise CommandError(f"config source {source!r} must be a path to a YAML/JSON file or a mapping, "
                           f"got {type(source).__name__}")
    origin = _describe(source)
    nested = data.pop("rafs", None)
    if nested is not None and not isinstance(nested, Mapping):
        raise CommandError(f"the 'rafs' block in {origin} must be a mapping of RAFSConfig fields, "
                           f"got {type(nested).__name__}")
    values: dict[str, Any] = {}
    options: dict[str, Any] = {}
    for block, block_origin in ((data, origin), (nested or {}, f"the 'rafs' block of {origin}")):
        for key, value in block.items():
            name = aliases.get(_norm(key), _norm(key))
            if name in fields:
                values[name] = _typed(name, value, fields[name], block_origin, text=False)
            elif name in extra and block is data:
                options[name] = value
            else:
                raise unknown_key_error(key, block_origin, valid if block is data else fields)
    for key, value in (overrides or {}).items():
        if value is None:
            continue
        name = _norm(key)
        if name not in fields:
            raise unknown_key_error(key, overrides_origin, fields)
        values[name] = _typed(name, value, fields[name], overrides_origin, text=True)
    try:
        config = _config_class()(**values)
    except (ValueError, TypeError) as exc:
        where = origin if source is not None else overrides_origin
        raise CommandError(f"{' '.join(str(exc).split())} (from {where})") from None
    return config, options


def load_rafs_config(source: str | os.PathLike | Mapping[str, Any] | None = None,
                     overrides: Mapping[str, Any] | None = None, *, flag: str = "--config") -> Any:
    """A :class:`rewards.RAFSConfig` from ``source`` (a path to a YAML or JSON file, a mapping of fields, or the text
    of an inline JSON/YAML mapping such as ``'{"tau_accept": 70}'``; a nested ``rafs:`` block is read too) with
    ``overrides`` (a mapping from flags) applied on top.

    Unknown keys, values of the wrong type and values out of range raise :class:`trainers.cli.CommandError` with
    one line naming the key, the file and the valid keys. ``missing_evidence`` is left as given (``None`` lets
    each use decide: :meth:`rewards.RAFSConfig.for_use`).

    >>> load_rafs_config({"rafs": {"weights": {"P_R": 1.0}}}, {"smooth": "true"}).smooth
    True
    >>> load_rafs_config('{"tau_accept": 65}').tau_accept
    65.0
    >>> load_rafs_config({"m_min": 1.5})
    Traceback (most recent call last):
    ...
    trainers.common.errors.CommandError: RAFS config key 'm_min' in the mapping given: 1.5 is not an integer; expected integer
    """
    return load_command_config(source, overrides, flag=flag)[0]


def config_to_dict(config: Any, *, only_changed: bool = True) -> dict[str, Any]:
    """The fields of a ``RAFSConfig`` as a plain dict (JSON-ready); with ``only_changed`` the fields that differ
    from the defaults.

    >>> config_to_dict(load_rafs_config({"tau_accept": 70}))
    {'tau_accept': 70.0}
    """
    default = _config_class()()
    out = {}
    for name in rafs_fields():
        value = getattr(config, name)
        if isinstance(value, Mapping):
            value = dict(value)
        if not only_changed or value != (dict(getattr(default, name)) if isinstance(getattr(default, name), Mapping)
                                         else getattr(default, name)):
            out[name] = value
    return out


# -- argparse ------------------------------------------------------------------------------------------------------

def add_config_arguments(parser: argparse.ArgumentParser, *, config_flag: bool = True, config_help: str | None = None,
                         aliases: Mapping[str, Iterable[str]] | None = None) -> argparse._ArgumentGroup:
    """Add ``--config FILE`` (unless ``config_flag`` is false: the command has its own) and one
    ``--rafs.FIELD VALUE`` flag per :class:`rewards.RAFSConfig` field to ``parser``, in a group of their own.

    ``aliases`` maps a field to extra option strings kept for compatibility (``{"tau_accept": ["--tau-accept"]}``).
    Read the result with :func:`config_from_args`.

    >>> p = argparse.ArgumentParser()
    >>> _ = add_config_arguments(p)
    >>> config_from_args(p.parse_args(["--rafs.tau_accept", "75"])).tau_accept
    75.0
    """
    group = parser.add_argument_group(
        "RAFS scorer settings",
        "RAFSConfig fields, from --config FILE (YAML or JSON) and/or one flag per field; flags override the file")
    if config_flag:
        group.add_argument("--config", metavar="FILE", default=None,
                           help=config_help or "YAML or JSON file of RAFSConfig fields (e.g. tau_accept: 70)")
    parser.set_defaults(_unknown_rafs_flag=unknown_flag_error)  # read by trainers.cli.main for an unknown flag
    helps = _field_help()
    aliases = aliases or {}
    for name, tp in rafs_fields().items():
        default = getattr(_config_class()(), name)
        if isinstance(default, Mapping):
            default = ",".join(f"{k}={v:g}" for k, v in default.items())
        text = helps.get(name, name)
        group.add_argument(f"{RAFS_FLAG_PREFIX}{name}", *aliases.get(name, ()), dest=f"{_DEST_PREFIX}{name}",
                           metavar=_metavar(tp), default=None,
                           help=f"{text} ({_type_name(tp)}; default {default})".replace("%", "%%"))
    return group


def _metavar(tp: Any) -> str:
    origin = typing.get_origin(tp)
    if origin in (typing.Union, types.UnionType):
        args = [a for a in typing.get_args(tp) if a is not type(None)]
        return _metavar(args[0]) if len(args) == 1 else "VALUE"
    if origin is not None and _is_mapping(origin):
        return "K=V,..."
    return {float: "X", int: "N", bool: "BOOL", str: "TEXT"}.get(tp, "VALUE")


def rafs_overrides_from_args(args: argparse.Namespace) -> dict[str, Any]:
    """The ``--rafs.FIELD`` values given on the command line (``{field: text}``)."""
    return {name: getattr(args, f"{_DEST_PREFIX}{name}") for name in rafs_fields()
            if getattr(args, f"{_DEST_PREFIX}{name}", None) is not None}


def config_from_args(args: argparse.Namespace, *, source: Any = None, extra_keys: Iterable[str] = (),
                     aliases: Mapping[str, str] | None = None, with_options: bool = False,
                     flag: str = "--config") -> Any:
    """The ``RAFSConfig`` of a command's ``--config FILE`` (or ``source``) and ``--rafs.FIELD`` flags; with
    ``with_options`` the pair ``(config, command options from the file)`` (see :func:`load_command_config`)."""
    if source is None:
        source = getattr(args, "config", None)
    config, options = load_command_config(source, rafs_overrides_from_args(args), extra_keys=extra_keys,
                                          aliases=aliases, flag=flag, overrides_origin="the --rafs.* flags")
    return (config, options) if with_options else config
