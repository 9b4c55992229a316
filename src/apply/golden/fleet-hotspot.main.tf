# The instance keyspread recommends for fleet-hotspot: design as-is. Generated: review before
# `terraform plan`/`apply` (docs/apply.md says what was and was not exercised).
# - Table device-reverse-ts exists (the design keeps the current key): pass --instance-id with the instance's id, and import the instance and table before applying; the table's split keys stay as they are.
# The table exists: import what exists before applying, e.g.
#   terraform import google_bigtable_instance.instance projects/PROJECT/instances/fleet-hotspot
#   terraform import google_bigtable_table.table projects/PROJECT/instances/fleet-hotspot/tables/device-reverse-ts

terraform {
  required_providers {
    google = {
      source = "hashicorp/google"
    }
  }
}

variable "project" {
  description = "The Google Cloud project the instance belongs to."
  type        = string
}

resource "google_bigtable_instance" "instance" {
  project             = var.project
  name                = "fleet-hotspot"
  display_name        = "fleet-hotspot"
  deletion_protection = true

  cluster {
    cluster_id          = "fleet-east"
    zone                = "us-east1-b" # assumed: check Bigtable serves this zone, or pass --zone
    storage_type        = "SSD"
    node_scaling_factor = "NodeScalingFactor1X"
    num_nodes           = 32
  }

  cluster {
    cluster_id          = "fleet-central"
    zone                = "us-central1-b" # assumed: check Bigtable serves this zone, or pass --zone
    storage_type        = "SSD"
    node_scaling_factor = "NodeScalingFactor1X"
    num_nodes           = 32
  }
}

resource "google_bigtable_table" "table" {
  project             = var.project
  name                = "device-reverse-ts"
  instance_name       = google_bigtable_instance.instance.name
  deletion_protection = "PROTECTED"

  column_family {
    family = "m"
  }
}

resource "google_bigtable_gc_policy" "retention" {
  project         = var.project
  instance_name   = google_bigtable_instance.instance.name
  table           = google_bigtable_table.table.name
  column_family   = "m"
  deletion_policy = "ABANDON"
  gc_rules        = <<-EOF
  {
    "mode": "union",
    "rules": [
      {
        "max_age": "720h"
      },
      {
        "max_version": 1
      }
    ]
  }
  EOF
}

resource "google_bigtable_app_profile" "ingest-and-latest" {
  project        = var.project
  instance       = google_bigtable_instance.instance.name
  app_profile_id = "ingest-and-latest"
  description    = "keyspread: writes, latest-100"

  single_cluster_routing {
    cluster_id                 = "fleet-east"
    allow_transactional_writes = true
  }

  standard_isolation {
    priority = "PRIORITY_HIGH"
  }
}

resource "google_bigtable_app_profile" "dashboards" {
  project                       = var.project
  instance                      = google_bigtable_instance.instance.name
  app_profile_id                = "dashboards"
  description                   = "keyspread: dashboard-30d"
  multi_cluster_routing_use_any = true

  standard_isolation {
    priority = "PRIORITY_LOW"
  }
}
