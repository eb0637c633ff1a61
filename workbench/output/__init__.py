"""What runs write: the telemetry log and CSV, verdict tables and JSON, preset files, atomic writes."""
