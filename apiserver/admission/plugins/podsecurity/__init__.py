"""PodSecurity (upstream's pod-security-admission): the namespace's
``pod-security.kubernetes.io/{enforce,audit,warn}`` labels pick a level (privileged, baseline,
restricted) per mode; ``checks`` holds the levels' checks, ``plugin`` the admission side."""
