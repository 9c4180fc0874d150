"""Price tables from public catalogs: import (`gpu-advisor prices import skypilot`) and refresh (`prices update`)."""
