#!/usr/bin/env bash
# The instance keyspread recommends for fleet-hotspot: design salt-16-by-deviceID+ts. Generated: review before
# running (docs/apply.md says what was and was not exercised). Set PROJECT first.
# - 2× node scaling is chosen when a cluster is created: an existing cluster cannot switch; node counts are even.
# - Data Boost reads run on serverless compute billed to this project (HOST_PAYS), may miss the last ~35 minutes of writes, and need an Enterprise edition instance.
# - Zones assumed (fleet-hotspot-c1 in us-central1-b): check Bigtable serves them, or pass --zone.
set -eo pipefail
[ -n "$PROJECT" ] || { echo "set PROJECT to the Google Cloud project id" >&2; exit 1; }

gcloud bigtable instances create fleet-hotspot \
    --project="$PROJECT" \
    --display-name=fleet-hotspot \
    --cluster-storage-type=ssd \
    --cluster-config=id=fleet-hotspot-c1,zone=us-central1-b,autoscaling-min-nodes=18,autoscaling-max-nodes=40,autoscaling-cpu-target=60,autoscaling-storage-target=2560,node-scaling-factor=node-scaling-factor-2x

gcloud bigtable instances tables create salt16-device-ts \
    --project="$PROJECT" \
    --instance=fleet-hotspot \
    --column-families='m:maxage=2592000s||maxversions=1' \
    --deletion-protection \
    '--splits=01#,02#,03#,04#,05#,06#,07#,08#,09#,10#,11#,12#,13#,14#,15#'

gcloud bigtable app-profiles create writes \
    --project="$PROJECT" \
    --instance=fleet-hotspot \
    --description='keyspread: writes' \
    --route-to=fleet-hotspot-c1 \
    --transactional-writes \
    --priority=PRIORITY_HIGH

gcloud bigtable app-profiles create latest-100 \
    --project="$PROJECT" \
    --instance=fleet-hotspot \
    --description='keyspread: latest-100' \
    --route-to=fleet-hotspot-c1 \
    --priority=PRIORITY_HIGH

gcloud bigtable app-profiles create dashboard-30d-data-boost \
    --project="$PROJECT" \
    --instance=fleet-hotspot \
    --description='keyspread: dashboard-30d' \
    --route-to=fleet-hotspot-c1 \
    --data-boost \
    --data-boost-compute-billing-owner=HOST_PAYS
