"""The leaf layer: the IR, graph and validator, loading, knowledge; later the runtime proper."""
