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
"""Nova's host weighers, over arrays of hosts: where a server goes.

Among the hosts that pass its filters the scheduler takes the one of
highest weight (nova.weights.BaseWeightHandler.get_weighed_objects): for
each weigher, the hosts' raw values are normalized to 0..1 over those
hosts (nova.weights.normalize: from the weigher's minval, 0 for RAM, CPU,
disk and I/O operations, else the smallest value, to the largest; all 0
when they are equal), multiplied by the weigher's multiplier and added
up. A multiplier is nova.conf's [filter_scheduler] option, or the
smallest value of the key of that name in the host's aggregates'
metadata (nova.scheduler.utils.get_weight_multiplier).

Hosts of equal weight are taken in the order of a set of (host, node)
pairs (HostManager._get_host_states), which the scheduler process's
string hashing decides: this module says which hosts tie instead of
naming one as if Nova had to pick it.

The same float operations in the same order as Nova's, so that equal
weights here are equal there.
"""

import dataclasses

import numpy

ALL_WEIGHERS = 'nova.scheduler.weights.all_weighers'


@dataclasses.dataclass(frozen=True)
class Weigher:
    """One of Nova's weighers: its class, multiplier option, minval."""

    name: str
    option: str
    minval: float | None = None
    #: The first release that has it.
    since: str = '2024.1'
    #: BuildFailureWeigher: the multiplier counts against the host.
    negated: bool = False


# In the order Nova adds their products up: it loads them walking the
# files of nova/scheduler/weights as the file system lists them; this is
# the order measured on Nova 29 and 34 installed from their wheels (34
# adds ImagePropertiesWeigher after PCIWeigher). Only exact ties depend
# on it.
WEIGHERS = (
    Weigher('CrossCellWeigher', 'cross_cell_move_weight_multiplier'),
    Weigher('NumInstancesWeigher', 'num_instances_weight_multiplier'),
    Weigher('MetricsWeigher', 'metrics_weight_multiplier'),
    Weigher('CPUWeigher', 'cpu_weight_multiplier', minval=0),
    Weigher('BuildFailureWeigher', 'build_failure_weight_multiplier',
            negated=True),
    Weigher('ServerGroupSoftAffinityWeigher',
            'soft_affinity_weight_multiplier'),
    Weigher('ServerGroupSoftAntiAffinityWeigher',
            'soft_anti_affinity_weight_multiplier'),
    Weigher('RAMWeigher', 'ram_weight_multiplier', minval=0),
    Weigher('DiskWeigher', 'disk_weight_multiplier', minval=0),
    Weigher('PCIWeigher', 'pci_weight_multiplier'),
    Weigher('ImagePropertiesWeigher', 'image_props_weight_multiplier',
            since='2025.1'),
    Weigher('IoOpsWeigher', 'io_ops_weight_multiplier', minval=0),
    Weigher('HypervisorVersionWeigher',
            'hypervisor_version_weight_multiplier'),
)
# PCIWeigher's cap on the devices it counts (nova.scheduler.weights.pci).
MAX_DEVS = 100


@dataclasses.dataclass(frozen=True)
class Settings:
    """The weighers a cloud's scheduler runs, as its nova.conf says."""

    weighers: tuple  # Weigher, in WEIGHERS order
    multipliers: dict  # option -> float
    host_subset_size: int = 1
    shuffle: bool = False
    metrics_setting: tuple = ()
    #: nova.conf [scheduler] max_placement_results.
    max_results: int = 1000


def settings(conf, release):
    """The Settings of conf's [weighers] for a Nova release."""
    section = conf.weighers
    names = {name.strip().rsplit('.', 1)[-1]
             for name in section.weight_classes}
    everything = ALL_WEIGHERS.rsplit('.', 1)[-1] in names
    chosen = tuple(w for w in WEIGHERS
                   if (everything or w.name in names) and w.since <= release)
    return Settings(
        weighers=chosen,
        multipliers={w.option: section[w.option] for w in WEIGHERS},
        host_subset_size=section.host_subset_size,
        shuffle=section.shuffle_best_same_weighed_hosts,
        metrics_setting=tuple(section.metrics_weight_setting),
        max_results=section.max_placement_results)


def unmodelled(settings_):
    """Lines on the weighers whose inputs no API shows."""
    lines = []
    names = {w.name for w in settings_.weighers}
    mult = settings_.multipliers
    if 'ImagePropertiesWeigher' in names and \
            mult['image_props_weight_multiplier']:
        lines.append('ImagePropertiesWeigher: the image properties of the '
                     'servers on each host are not read; not weighed')
    if 'MetricsWeigher' in names and settings_.metrics_setting:
        lines.append('MetricsWeigher: compute metrics are in no API; not '
                     'weighed')
    if settings_.host_subset_size > 1:
        lines.append('host_subset_size = %d: Nova picks at random among '
                     'that many best hosts; the host named is the best'
                     % settings_.host_subset_size)
    return lines


def reads_stats(settings_):
    """Whether a weigher run reads the compute nodes' stats."""
    return any(settings_.multipliers[w.option] for w in settings_.weighers
               if w.name in ('IoOpsWeigher', 'BuildFailureWeigher'))


def host_multipliers(settings_, hosts):
    """{option: multiplier of each host (array)} of the weighers run.

    An aggregate's value overrides the option; several: the smallest; one
    that is not a number: the option (Nova logs a warning and does the
    same).
    """
    found = {}
    for weigher in settings_.weighers:
        default = settings_.multipliers[weigher.option]
        values = numpy.full(len(hosts), default, dtype=numpy.float64)
        for position, host in enumerate(hosts):
            listed = {agg.metadata[weigher.option] for agg in host.aggregates
                      if weigher.option in (agg.metadata or {})}
            if listed:
                try:
                    values[position] = min(float(v) for v in listed)
                except (TypeError, ValueError):
                    pass
        found[weigher.option] = -values if weigher.negated else values
    return found


def normalize(raw, minval):
    """nova.weights.normalize of an array of raw values, as floats."""
    raw = numpy.asarray(raw, dtype=numpy.float64)
    if minval is not None:
        # BaseWeigher.weigh_objects raises values below minval to it.
        raw = numpy.maximum(raw, float(minval))
    high = float(raw.max())
    low = float(raw.min()) if minval is None else float(minval)
    if low == high:
        return numpy.zeros(len(raw))
    return (raw - low) / (high - low)


def weigh(settings_, multipliers, raw, candidates):
    """The weight of each candidate (positions), as Nova sums them.

    raw(weigher, candidates): the weigher's raw values of the candidates.
    A single candidate weighs 0: Nova does not weigh it.
    """
    total = numpy.zeros(len(candidates), dtype=numpy.float64)
    if len(candidates) <= 1:
        return total
    for weigher in settings_.weighers:
        values = raw(weigher, candidates)
        if values is None:
            continue
        total += multipliers[weigher.option][candidates] * normalize(
            values, weigher.minval)
    return total


def pci_value(free_devices):
    """PCIWeigher's raw value of hosts with so many free PCI devices."""
    return MAX_DEVS - numpy.minimum(free_devices, MAX_DEVS - 1)
