"""The technician's first-run setup, apart from the page that serves it: what it reaches on a running
appliance and the choices it keeps in the data folder (:mod:`.rig`), the camera check (:mod:`.camera_check`)
and the deck taught card by card (:mod:`.deck_teaching`). The dashboard's routes (``web/setup_routes.py``)
forward the technician's actions here."""
