"""Images without an image store: the images the process runtime knows and how they run.

There are no image files: a container's programs are the node's. A few images that tutorials
use are known (``catalog.IMAGES``: ``busybox``, ``alpine``, ``python``, ``curlimages/curl``,
``nginx``, under any registry, tag or digest, ``reference``): each has its real image's
ENTRYPOINT, CMD and ENV, so ``command``/``args`` work as with a container runtime, and host
programs that stand in for its files (``toolbox``: busybox's applets, the agent's Python, the
node's curl), which the process runtime binds read-only into the container. ``nginx`` is a
built-in demo program (``nginx.py``, standard library only, run as ``python -I``):

- ``nginx`` (the image ``nginx`` or ``<anything>/nginx``): a static web server on ``$POD_IP``
  (default ``0.0.0.0``), port ``$NGINX_PORT`` (default 80; the agent sets it to the container's
  first ``containerPort``), serving ``$NGINX_ROOT`` (default ``/usr/share/nginx/html`` when it
  exists, else a built-in welcome page).

Any other image runs only with a ``command`` or ``args`` (taken as an image without an
ENTRYPOINT would run them); with neither it cannot be created. See "Images" in
``nodeagent/README.md``.
"""
