async def clear_data(driver, group_ids=None):
    if group_ids is None:
        driver.groups.clear()
        return
    for g in group_ids:
        driver.groups.pop(g, None)
