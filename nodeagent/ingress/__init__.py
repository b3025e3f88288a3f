"""The built-in ingress controller (``minikube-py ingress-controller``, on in ``up``): serves
the Ingresses of its IngressClass on a loopback HTTP port, straight to the ready endpoints of
their backend Services, as ingress-nginx does. See the node agent README, "Ingress controller"."""
