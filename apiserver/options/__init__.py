"""The apiserver's command line: its flags (upstream's names) and what ``up`` configures,
turned into the options the server runs with (``SecurityConfig``, ``ServingOptions``,
``ServerRunOptions``). The top of the apiserver's layers, under ``apiserver.app`` only: it may
import anything in ``apiserver``; nothing in ``apiserver`` but the façade imports it."""
