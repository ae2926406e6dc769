#!/bin/bash
# devstack plugin for flavor-exporter: installs it, configures it against
# the devstack cloud (keystone auth, memcached) and runs the worker as a
# systemd unit and the API under uWSGI behind Apache at /capacity, as
# devstack runs Nova's and Placement's APIs.

XTRACE=$(set +o | grep xtrace)
set -o xtrace

function install_flavor_exporter {
    install_package memcached
    # [cli]: the openstack CLI plugin (openstack capacity flavor ...);
    # [uwsgi]: the uwsgi command, should devstack not have installed one.
    setup_develop "$FLAVOR_EXPORTER_DIR" cli,uwsgi
}

function configure_flavor_exporter {
    sudo install -d -o "$STACK_USER" "$FLAVOR_EXPORTER_CONF_DIR" \
        "$FLAVOR_EXPORTER_AUTH_CACHE_DIR"
    rm -f "$FLAVOR_EXPORTER_CONF"

    iniset "$FLAVOR_EXPORTER_CONF" DEFAULT debug "$ENABLE_DEBUG_LOG_LEVEL"
    iniset "$FLAVOR_EXPORTER_CONF" DEFAULT auth_strategy keystone
    # The API behind Apache: the URL and scheme clients used.
    iniset "$FLAVOR_EXPORTER_CONF" oslo_middleware \
        enable_proxy_headers_parsing True
    write_uwsgi_config "$FLAVOR_EXPORTER_UWSGI_CONF" "$FLAVOR_EXPORTER_UWSGI" \
        "/capacity" "" "flavor-exporter-api"
    iniset "$FLAVOR_EXPORTER_CONF" worker refresh_interval \
        "$FLAVOR_EXPORTER_REFRESH_INTERVAL"
    iniset "$FLAVOR_EXPORTER_CONF" document_cache memcache_servers \
        "$SERVICE_HOST:11211"
    if [[ -n "$FLAVOR_EXPORTER_COORDINATION_URL" ]]; then
        iniset "$FLAVOR_EXPORTER_CONF" coordination backend_url \
            "$FLAVOR_EXPORTER_COORDINATION_URL"
    fi

    # The worker reads the whole cloud: it needs an admin identity.
    iniset "$FLAVOR_EXPORTER_CONF" openstack auth_type password
    iniset "$FLAVOR_EXPORTER_CONF" openstack auth_url "$KEYSTONE_SERVICE_URI"
    iniset "$FLAVOR_EXPORTER_CONF" openstack username admin
    iniset "$FLAVOR_EXPORTER_CONF" openstack password "$ADMIN_PASSWORD"
    iniset "$FLAVOR_EXPORTER_CONF" openstack project_name admin
    iniset "$FLAVOR_EXPORTER_CONF" openstack user_domain_id default
    iniset "$FLAVOR_EXPORTER_CONF" openstack project_domain_id default
    iniset "$FLAVOR_EXPORTER_CONF" openstack region_name "$REGION_NAME"
    if [[ "$FLAVOR_EXPORTER_NOTIFICATIONS" == "True" ]] && \
            is_service_enabled rabbit; then
        # Nova's notification bus, as devstack gives it to Nova; Nova
        # sends with the messagingv2 driver.
        iniset "$FLAVOR_EXPORTER_CONF" openstack notification_transport_url \
            "$(get_notification_url)"
        iniset "$NOVA_CONF" oslo_messaging_notifications driver messagingv2
    fi

    local alias
    while read -r alias; do
        if [[ -n "$alias" ]]; then
            iniadd "$FLAVOR_EXPORTER_CONF" pci alias "$alias"
        fi
    done <<< "$FLAVOR_EXPORTER_PCI_ALIASES"

    configure_keystone_authtoken_middleware "$FLAVOR_EXPORTER_CONF" \
        flavor-exporter
}

function create_flavor_exporter_accounts {
    create_service_user "flavor-exporter"
    # Where the openstack CLI plugin finds the API: the catalog's
    # "capacity" service. The API's routes (/v3/...) are below this URL.
    get_or_create_service "flavor-exporter" "capacity" \
        "Per-flavor capacity of the cloud"
    get_or_create_endpoint "capacity" "$REGION_NAME" \
        "$FLAVOR_EXPORTER_SERVICE_PROTOCOL://$FLAVOR_EXPORTER_SERVICE_HOST/capacity"
}

# The Horizon plugin (Project and Admin > Compute > Capacity), when
# devstack runs Horizon: installed into Horizon's Python with the
# dashboard extra, its enabled files copied where Horizon reads them.
function install_flavor_exporter_dashboard {
    setup_develop "$FLAVOR_EXPORTER_DIR" cli,uwsgi,dashboard
}

function configure_flavor_exporter_dashboard {
    cp "$FLAVOR_EXPORTER_DIR"/flavor_exporter/dashboard/enabled/_[0-9]*.py \
        "$HORIZON_DIR/openstack_dashboard/local/enabled/"
    # Horizon's static files, the plugin's among them, as init_horizon
    # collects and compresses them; then Apache serves the new panels.
    (cd "$HORIZON_DIR" && $PYTHON manage.py collectstatic --noinput \
        && $PYTHON manage.py compress --force)
    restart_apache_server
}

function cleanup_flavor_exporter_dashboard {
    rm -f "$HORIZON_DIR"/openstack_dashboard/local/enabled/_[0-9]*_capacity_panel.py
}

function start_flavor_exporter {
    local bin
    bin=$(get_python_exec_prefix)
    run_process flavor-exporter-worker \
        "$bin/flavor-exporter-worker --config-file $FLAVOR_EXPORTER_CONF"
    run_process flavor-exporter-api \
        "$bin/uwsgi --procname-prefix flavor-exporter-api --ini $FLAVOR_EXPORTER_UWSGI_CONF"
}

function stop_flavor_exporter {
    local serv
    for serv in flavor-exporter-api flavor-exporter-worker; do
        stop_process "$serv"
    done
}

function cleanup_flavor_exporter {
    remove_uwsgi_config "$FLAVOR_EXPORTER_UWSGI_CONF" "flavor-exporter-api"
    sudo rm -rf "$FLAVOR_EXPORTER_CONF_DIR" "$FLAVOR_EXPORTER_AUTH_CACHE_DIR"
}

if is_service_enabled flavor-exporter-api flavor-exporter-worker; then
    if [[ "$1" == "stack" && "$2" == "install" ]]; then
        echo_summary "Installing flavor-exporter"
        install_flavor_exporter
        if is_service_enabled horizon; then
            install_flavor_exporter_dashboard
        fi
    elif [[ "$1" == "stack" && "$2" == "post-config" ]]; then
        echo_summary "Configuring flavor-exporter"
        create_flavor_exporter_accounts
        configure_flavor_exporter
        if is_service_enabled horizon; then
            configure_flavor_exporter_dashboard
        fi
    elif [[ "$1" == "stack" && "$2" == "extra" ]]; then
        echo_summary "Starting flavor-exporter"
        start_flavor_exporter
    fi

    if [[ "$1" == "unstack" ]]; then
        stop_flavor_exporter
    fi

    if [[ "$1" == "clean" ]]; then
        cleanup_flavor_exporter
        if is_service_enabled horizon; then
            cleanup_flavor_exporter_dashboard
        fi
    fi
fi

$XTRACE
