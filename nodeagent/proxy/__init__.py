"""The service proxy (upstream's kube-proxy), in user space on asyncio: it list-watches Services,
EndpointSlices and Nodes and serves every ClusterIP:port, each NodePort on the node addresses
it serves, and LoadBalancer ingress (the ClusterIP, as ``minikube tunnel`` does), forwarding
TCP streams and UDP flows to ready loopback endpoints.

Higher modules first: ``app`` (assembly) > ``options`` (flags) > ``proxier`` (informers, the
debounced sync) > ``lbstatus``, ``healthz`` > ``listeners`` > ``tcp``, ``udp`` > ``routes``
> ``balancer``, ``servicemap``, ``endpoints``, ``network``, ``metrics``, ``runner``. Nothing
here imports the node agent's pod or runtime parts.
"""
