"""InterPodAffinity (upstream ``plugins/interpodaffinity``): affinity terms parsed once per
pod, the Filter side (required terms, both ways) and the Score side (preferred terms)."""
