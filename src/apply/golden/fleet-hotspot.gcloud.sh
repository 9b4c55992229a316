#!/usr/bin/env bash
# The instance keyspread recommends for fleet-hotspot: design as-is. Generated: review before
# running (docs/apply.md says what was and was not exercised). Set PROJECT first.
# - Table device-reverse-ts exists (the design keeps the current key): pass --instance-id with the instance's id, and import the instance and table before applying; the table's split keys stay as they are.
# - Zones assumed (fleet-east in us-east1-b, fleet-central in us-central1-b): check Bigtable serves them, or pass --zone.
set -eo pipefail
[ -n "$PROJECT" ] || { echo "set PROJECT to the Google Cloud project id" >&2; exit 1; }

# The instance and table exist (the design keeps the current key): resize its clusters, add the missing.
if gcloud bigtable clusters describe fleet-east --project="$PROJECT" --instance=fleet-hotspot >/dev/null 2>&1; then
  gcloud bigtable clusters update fleet-east \
    --project="$PROJECT" \
    --instance=fleet-hotspot \
    --num-nodes=32
else
  gcloud bigtable clusters create fleet-east \
    --project="$PROJECT" \
    --instance=fleet-hotspot \
    --zone=us-east1-b \
    --node-scaling-factor=node-scaling-factor-1x \
    --num-nodes=32
fi
if gcloud bigtable clusters describe fleet-central --project="$PROJECT" --instance=fleet-hotspot >/dev/null 2>&1; then
  gcloud bigtable clusters update fleet-central \
    --project="$PROJECT" \
    --instance=fleet-hotspot \
    --num-nodes=32
else
  gcloud bigtable clusters create fleet-central \
    --project="$PROJECT" \
    --instance=fleet-hotspot \
    --zone=us-central1-b \
    --node-scaling-factor=node-scaling-factor-1x \
    --num-nodes=32
fi
# The table keeps its column family's GC rule; to set the retention, e.g.:
#   cbt -project "$PROJECT" -instance fleet-hotspot setgcpolicy device-reverse-ts m "maxage=2592000s or maxversions=1"

gcloud bigtable app-profiles create ingest-and-latest \
    --project="$PROJECT" \
    --instance=fleet-hotspot \
    --description='keyspread: writes, latest-100' \
    --route-to=fleet-east \
    --transactional-writes \
    --priority=PRIORITY_HIGH

gcloud bigtable app-profiles create dashboards \
    --project="$PROJECT" \
    --instance=fleet-hotspot \
    --description='keyspread: dashboard-30d' \
    --route-any \
    --priority=PRIORITY_LOW
