"""The Flask dashboard: game setup, uploads, live camera, block checks, overlay, scoreboard."""
