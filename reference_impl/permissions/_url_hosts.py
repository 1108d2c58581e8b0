"""URL hosts as ``WebFetch(domain:...)`` rules compare them (PERM-11).

A host is normalised before it is compared (:func:`normalise_host`): percent-decoded, lower-cased,
IDNA-encoded (where IDNA 2003 and UTS 46 agree), an IPv4 address in any numeric form as its dotted quad. A URL or a rule's host that
can't be read with certainty is never allowed, and matched by every deny or ask rule.

The local machine has many spellings that reach the same services (:func:`is_local_machine`):
``127.0.0.0/8``, ``0.0.0.0`` (Linux connects it to the local host), ``[::]``, ``[::1]``, ``localhost``
and its subdomains. A deny or ask rule naming one of them matches every other; an allow rule only its own.
"""

from __future__ import annotations

import ipaddress
import re
import socket
from urllib.parse import unquote, urlsplit

import idna

from reference_impl.permissions._decisions import PermissionBehavior

__all__ = ["host_matches", "is_local_machine", "normalise_host"]

_IPV4_PART = re.compile(r"^(0x[0-9a-f]*|0[0-7]*|[1-9][0-9]*)$")


def normalise_host(host: str) -> str | None:
    """A URL host as a domain rule compares it; None when it can't be read with certainty.

    Percent-decoded, lower-cased, IDNA-encoded (``bücher.de`` is ``xn--bcher-kva.de``; Unicode
    full stops such as ``。`` and full-width letters and digits mapped as IDNA maps them), without
    a trailing dot, an IPv4 address in any of its numeric forms (``2130706433``, ``0x7f.1``,
    ``0177.0.0.1``) as its dotted quad, and an IPv4-mapped IPv6 address (``[::ffff:127.0.0.1]``,
    which reaches the IPv4 host) as that IPv4 address.
    """
    try:
        host = unquote(host, errors="strict").strip().lower()
    except UnicodeDecodeError:
        return None
    original = host
    if not host or re.search(r"[\x00-\x20%/\\@?#]", host):
        return None
    if ":" in host and not (host.startswith("[") and host.endswith("]")):
        return None  # ``a:80:90``: no parser agrees on where such a host ends
    if host.startswith("[") and host.endswith("]"):
        try:
            address = ipaddress.ip_address(host[1:-1])
        except ValueError:
            return None
        mapped = address.ipv4_mapped if isinstance(address, ipaddress.IPv6Address) else None
        return str(mapped if mapped is not None else address)
    if not host.isascii():
        # IDNA 2003 (Python's codec) and UTS 46 / IDNA 2008 (curl with libidn2, browsers, httpx's
        # ``idna``) map some names differently (``faß.de`` is ``fass.de`` or ``xn--fa-hia.de``): a
        # host they disagree on is not read with certainty.
        try:
            host = host.encode("idna").decode("ascii").lower()
            modern = idna.encode(original, uts46=True).decode("ascii").lower()
        except (UnicodeError, idna.IDNAError):
            return None
        if modern.rstrip(".") != host.rstrip("."):
            return None
    host = host.rstrip(".")
    labels = host.split(".")
    if host and all(_IPV4_PART.match(label) for label in labels) and len(labels) <= 4:
        try:
            return socket.inet_ntoa(socket.inet_aton(host))
        except OSError:
            return None
    return host or None


def is_local_machine(host: str) -> bool:
    """Whether a normalised host names the local machine, however spelled.

    ``127.0.0.0/8`` and ``0.0.0.0/8`` (a connection to ``0.0.0.0`` reaches the local host), the IPv6
    unspecified and loopback addresses (also IPv4-compatible ``::127.0.0.1``), and ``localhost``
    with its subdomains (RFC 6761: resolvers answer them with loopback addresses).
    """
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return False
    if isinstance(address, ipaddress.IPv6Address):
        if address.is_loopback or address.is_unspecified:
            return True
        if address.ipv4_mapped is not None:
            return is_local_machine(str(address.ipv4_mapped))
        # IPv4-compatible ``::127.0.0.1`` (deprecated; some stacks still route it to the IPv4 host).
        return int(address) >> 32 == 0 and ipaddress.IPv4Address(int(address)).is_loopback
    return address.is_loopback or address in _THIS_NETWORK


_THIS_NETWORK = ipaddress.IPv4Network("0.0.0.0/8")


def host_matches(pattern: str, url: str, behavior: PermissionBehavior) -> bool:
    """Whether the host of ``url`` matches a ``domain:`` rule content (leniently for deny and ask)."""
    try:
        parts = urlsplit(url.strip())
        netloc_host = parts.netloc.rpartition("@")[2]
        if netloc_host.startswith("["):
            raw_host = netloc_host[: netloc_host.find("]") + 1]
        else:
            raw_host = netloc_host.rsplit(":", 1)[0] if netloc_host.count(":") == 1 else netloc_host
        host = normalise_host(raw_host)
        understood = (
            parts.scheme.lower() in ("http", "https")
            and host is not None
            and not re.search(r"[\\\s\x00-\x1f]", parts.netloc)
        )
    except ValueError:
        host, understood = None, False
    if not understood or host is None:
        return behavior != "allow"  # an unreadable URL is never allowed by a domain rule
    raw_want = pattern[len("domain:") :]
    wildcard = raw_want.startswith("*.")
    want = normalise_host(raw_want[2:] if wildcard else raw_want)
    if want is None:
        return behavior != "allow"
    if behavior != "allow" and is_local_machine(want) and is_local_machine(host):
        return True  # every spelling of the local machine reaches the services a deny or ask names
    if wildcard:
        return host.endswith("." + want)
    return host == want
