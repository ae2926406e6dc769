# Copyright 2026 The flavor-exporter Authors
#
#    Licensed under the Apache License, Version 2.0 (the "License"); you may
#    not use this file except in compliance with the License. You may obtain
#    a copy of the License at
#
#         http://www.apache.org/licenses/LICENSE-2.0
#
#    Unless required by applicable law or agreed to in writing, software
#    distributed under the License is distributed on an "AS IS" BASIS, WITHOUT
#    WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied. See the
#    License for the specific language governing permissions and limitations
#    under the License.
"""WSGI entry point for uWSGI, gunicorn, mod_wsgi...

    uwsgi --http :8780 --lazy-apps \\
          --module flavor_exporter.wsgi.api:application

Configuration files are named by OS_FLAVOR_EXPORTER_CONFIG_DIR and
OS_FLAVOR_EXPORTER_CONFIG_FILES (see flavor_exporter.wsgi.environment), never
by the command line, which belongs to the server. Load the application in
each worker process (uWSGI --lazy-apps, gunicorn's default): it opens
cache connections, which must not be shared across a fork.
"""

from flavor_exporter.api import app
from flavor_exporter.common import config
from flavor_exporter.wsgi import environment as wsgi_env


def init_application():
    """Parse the configuration, set up logging, build the application."""
    config.prepare_service(
        [], default_config_files=wsgi_env.config_files())
    conf = config.CONF
    return app.setup_app(conf)


application = init_application()
