"""The dashboard served for real on loopback, as `appliance run` serves it: the front (event stream,
TLS) and waitress with the Flask app behind it."""

import contextlib

from appliance.web.serving import serve_dashboard


@contextlib.contextmanager
def dashboard_serving(make_app, live, **options):
    """The base URL of the dashboard that ``make_app(site)`` builds, served on a free loopback port."""
    dashboard = serve_dashboard(make_app, live, **options)
    try:
        yield dashboard.url
    finally:
        dashboard.stop()
