"""HTTP endpoints: request info, the resource handlers, discovery, OpenAPI and Tables."""
