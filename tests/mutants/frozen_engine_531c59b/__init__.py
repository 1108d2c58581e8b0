"""The permission engine's logic as it was at commit 531c59b, frozen for the mutant ``m_engine_531c59b``.

A verbatim copy of ``reference_impl/permissions``' logic modules (``git show 531c59b:...``) with their
imports of each other pointed here; the types and settings modules (``_context``, ``_decisions``,
``_rule_syntax``, ``_settings``, ``_host``) stay the live ones, so the decisions it returns are the
harness's own types. Do not edit: it is the yardstick the fuzzing generators are measured against
(docs/fuzzing-findings.md).
"""
