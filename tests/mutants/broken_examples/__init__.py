"""Deliberately broken mutants for tests/test_mutant_runner.py: never discovered as real mutants.

``discover()`` only globs ``tests/mutants/m_*.py``; these are found with
``discover(directory=BROKEN_EXAMPLES_DIR)`` or ``run.py --mutants-dir tests/mutants/broken_examples``.
"""
