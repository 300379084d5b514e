"""A WSGI app served for real by waitress on loopback, stopped cleanly (its workers finish before
their sockets close, so no thread dies on a closed descriptor)."""

import contextlib
import threading

import waitress.server


@contextlib.contextmanager
def waitress_serving(app, threads: int = 4):
    """The base URL of ``app`` served by waitress on a free loopback port."""
    server = waitress.server.create_server(app, host="127.0.0.1", port=0, threads=threads)
    stopping = threading.Event()

    def run():
        try:
            server.run()
        except OSError:
            if not stopping.is_set():
                raise

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.effective_port}"
    finally:
        stopping.set()
        server.task_dispatcher.shutdown()
        for channel in list(server._map.values()):
            channel.close()
        server.close()
        thread.join(timeout=5)
