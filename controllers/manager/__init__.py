"""The controller-manager: named controllers over one shared informer factory, under leader
election, each acting with its own service-account credentials."""
