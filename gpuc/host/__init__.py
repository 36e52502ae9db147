"""The host runner: `gpuc run` / `gpuc.run_host` execute a module's host code
(runner.py), launching the kernels gpuc compiled. Loaded only to run host
code, so `gpuc compile` never imports it or xDSL's interpreters."""
