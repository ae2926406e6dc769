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
"""The clouds one deployment serves, each with its own cache keys.

Every cloud is refreshed, published, locked and served apart: one cloud
failing leaves the others fresh. Without [DEFAULT] clouds there is one,
called "default", read through [openstack] and published under
[document_cache] key_prefix, as before several clouds existed.
"""

import collections
import re

from flavor_exporter._i18n import _
from flavor_exporter.common import exceptions
from flavor_exporter.conf import clouds as clouds_conf
from flavor_exporter.conf import openstack as openstack_conf

SINGLE = 'default'

# Safe in a URL path segment, a cache key and a Prometheus label, and
# never "." or "..".
_NAME = re.compile(r'^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$')


class Cloud(collections.namedtuple('Cloud', 'name group key_prefix')):
    """One cloud or region.

    name: what the API paths, the metrics' cloud label and the logs call
    it; group: the configuration group of its connection options;
    key_prefix: the prefix of its cache keys.
    """

    @property
    def log_prefix(self):
        """'' for the single cloud; 'Cloud NAME: ' among several."""
        return '' if self.group == openstack_conf.GROUP else (
            'Cloud %s: ' % self.name)


def register_opts(conf):
    """Register the group of every cloud of [DEFAULT] clouds.

    Call once the files are read (the names come from them), before the
    groups are used. exceptions.InvalidOption on a name that cannot be one.
    """
    for name in _names(conf):
        if clouds_conf.GROUP_PREFIX + name not in conf:
            clouds_conf.register_cloud_group(conf, name)


def _names(conf):
    names = [name.strip() for name in conf.clouds]
    for name in names:
        if not _NAME.match(name):
            raise exceptions.InvalidOption(
                _('[DEFAULT] clouds: "%s" cannot name a cloud; use '
                  'letters, digits, ".", "_" and "-", starting with a '
                  'letter or digit') % name)
    duplicate = [n for n, count in collections.Counter(names).items()
                 if count > 1]
    if duplicate:
        raise exceptions.InvalidOption(
            _('[DEFAULT] clouds names "%s" twice') % duplicate[0])
    return names


def configured(conf):
    """The clouds of this deployment, in their configured order.

    exceptions.InvalidOption when [DEFAULT] default_cloud names none of them.
    """
    prefix = conf.document_cache.key_prefix
    names = _names(conf)
    if not names:
        if conf.default_cloud not in (None, '', SINGLE):
            raise exceptions.InvalidOption(
                _('[DEFAULT] default_cloud = %s, but [DEFAULT] clouds is '
                  'empty; list the clouds there') % conf.default_cloud)
        return [Cloud(SINGLE, openstack_conf.GROUP, prefix)]
    default = conf.default_cloud or names[0]
    if default not in names:
        raise exceptions.InvalidOption(
            _('[DEFAULT] default_cloud = %(default)s is none of [DEFAULT] '
              'clouds (%(names)s)')
            % {'default': default, 'names': ', '.join(names)})
    return [Cloud(name, clouds_conf.GROUP_PREFIX + name,
                  '%s:%s' % (prefix, name)) for name in names]


def default(conf):
    """The cloud the legacy and the unprefixed v3 routes serve."""
    found = configured(conf)
    wanted = conf.default_cloud or found[0].name
    return next(cloud for cloud in found if cloud.name == wanted)
