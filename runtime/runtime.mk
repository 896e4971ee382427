# owned by its area; filled in as the area lands
