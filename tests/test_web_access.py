"""The dashboard's one module for who may use a route and how a refusal is answered (web/access.py),
and the services its module-level blueprints read from the app (web/services.py)."""

import html
from pathlib import Path

from appliance.config import load_house
from appliance.table.live import LiveTable
from appliance.web import access
from appliance.web.app import create_app

WEB = Path(access.__file__).parent


def test_one_blueprint_serves_several_apps_each_from_its_own_services():
    houses = [load_house("general"), load_house("capitol")]
    assert set(houses[0].misdeal_reasons) != set(houses[1].misdeal_reasons)  # else nothing would be shown
    apps = [create_app(LiveTable(), rules) for rules in houses]  # both registered before either answers
    for app, rules in zip(apps, houses):
        page = app.test_client().get("/supervisor").get_data(as_text=True)
        assert all(f'<option value="{html.escape(r)}">' in page for r in rules.misdeal_reasons)
        others = set(houses[1 - apps.index(app)].misdeal_reasons) - set(rules.misdeal_reasons)
        assert not any(f'<option value="{html.escape(r)}">' in page for r in others)


def test_no_route_builds_an_error_answer_of_its_own():
    routes = [WEB / "app.py", *sorted(WEB.glob("*_routes.py"))]
    assert len(routes) == 5
    for path in routes:
        assert '"error"' not in path.read_text(), f"{path.name} answers an error itself: raise, and let access answer"
