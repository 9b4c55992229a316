# The instance keyspread recommends for fleet-hotspot: design salt-16-by-deviceID+ts. Generated: review before
# `terraform plan`/`apply` (docs/apply.md says what was and was not exercised).
# - 2× node scaling is chosen when a cluster is created: an existing cluster cannot switch; node counts are even.
# - Data Boost reads run on serverless compute billed to this project (HOST_PAYS), may miss the last ~35 minutes of writes, and need an Enterprise edition instance.

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
    cluster_id          = "fleet-hotspot-c1"
    zone                = "us-central1-b" # assumed: check Bigtable serves this zone, or pass --zone
    storage_type        = "SSD"
    node_scaling_factor = "NodeScalingFactor2X"

    autoscaling_config {
      min_nodes      = 18
      max_nodes      = 40
      cpu_target     = 60
      storage_target = 2560
    }
  }
}

resource "google_bigtable_table" "table" {
  project             = var.project
  name                = "salt16-device-ts"
  instance_name       = google_bigtable_instance.instance.name
  deletion_protection = "PROTECTED"
  # 2 split keys are not UTF-8 text: create the table with
  # `keyspread table create --store bigtable`, which pre-splits it at the salt's buckets.

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

resource "google_bigtable_app_profile" "writes" {
  project        = var.project
  instance       = google_bigtable_instance.instance.name
  app_profile_id = "writes"
  description    = "keyspread: writes"

  single_cluster_routing {
    cluster_id                 = "fleet-hotspot-c1"
    allow_transactional_writes = true
  }

  standard_isolation {
    priority = "PRIORITY_HIGH"
  }
}

resource "google_bigtable_app_profile" "latest-100" {
  project        = var.project
  instance       = google_bigtable_instance.instance.name
  app_profile_id = "latest-100"
  description    = "keyspread: latest-100"

  single_cluster_routing {
    cluster_id                 = "fleet-hotspot-c1"
    allow_transactional_writes = false
  }

  standard_isolation {
    priority = "PRIORITY_HIGH"
  }
}

resource "google_bigtable_app_profile" "dashboard-30d-data-boost" {
  project        = var.project
  instance       = google_bigtable_instance.instance.name
  app_profile_id = "dashboard-30d-data-boost"
  description    = "keyspread: dashboard-30d"

  single_cluster_routing {
    cluster_id                 = "fleet-hotspot-c1"
    allow_transactional_writes = false
  }

  data_boost_isolation_read_only {
    compute_billing_owner = "HOST_PAYS"
  }
}
